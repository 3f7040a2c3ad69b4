package query

import "testing"

// tsCallbackFiles: literals returned by a method of a literal of stated
// type and by an arrow passed to a function whose parameter states the
// arrow's type; another interface declares a member of the same name.
var tsCallbackFiles = map[string]string{
	"src/types.ts": `export interface Closer {
  close(): void;
}

export interface Door {
  close(): void;
}

export type Teardown = Closer | (() => void) | void;

export interface Source<T> {
  open(sink: (v: T) => void): Closer;
}
`,
	"src/source.ts": `import type { Source, Teardown } from './types';

export function source<T>(start: (sink: (v: T) => void) => Teardown): Source<T> {
  const self: Source<T> = {
    open(sink) {
      let stopped = false;
      function close() {
        stopped = true;
      }
      start(sink);
      return {
        close,
      };
    },
  };
  return self;
}

export function counter(): Source<number> {
  return source((sink) => {
    sink(1);
    return {
      close() {
        sink(0);
      },
    };
  });
}
`,
}

// TestRefsTypeScriptCallbackReturns: a literal returned by a method of a
// literal of stated type is written for the return type that type's
// member states; one returned by an arrow passed as an argument, for the
// return type the parameter's function type states.
func TestRefsTypeScriptCallbackReturns(t *testing.T) {
	p := refsRepo(t, tsCallbackFiles)
	at := func(path, marker string) string { return atLine(t, tsCallbackFiles, path, marker) }
	cases := []struct {
		qualname string
		want     map[string]string
	}{
		{"Closer.close", map[string]string{
			at("src/source.ts", "  close,"):        ConfResolved,
			at("src/source.ts", "      close() {"): ConfResolved,
		}},
		{"Door.close", map[string]string{
			at("src/source.ts", "  close,"):        "",
			at("src/source.ts", "      close() {"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/types.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
