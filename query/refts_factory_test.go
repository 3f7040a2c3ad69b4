package query

import "testing"

// tsFactoryFiles: values whose types the source states only at a
// function expression bound to a name ("const f = (x: T) =>"), in a
// generic factory's result, or in a union.
var tsFactoryFiles = map[string]string{
	"src/types.ts": `export interface Observer<T, E> {
  next: (value: T) => void;
  error: (err: E) => void;
}

export interface Subject<T> {
  next: (value: T) => void;
}
`,
	"src/arrow.ts": `import type { Observer, Subject } from './types';

export function make<T>(v: T): Subject<T> {
  const add = (observer: Observer<T, never>) => {
    if (v !== undefined) {
      observer.next(v); // the arrow's stated parameter
    }
  };
  const drop = async function (
    observer?: Observer<T, never>,
  ) {
    const later = () => {
      observer?.next(v); // an outer function expression's parameter
    };
    later();
  };
  add;
  drop;
  return null as any;
}
`,
}

// TestRefsTypeScriptFactories: a member's use through a value typed by
// a function expression's stated parameter, a generic factory's result
// or a union's members ties it to the type the source states.
func TestRefsTypeScriptFactories(t *testing.T) {
	p := refsRepo(t, tsFactoryFiles)
	at := func(path, marker string) string { return atLine(t, tsFactoryFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/types.ts", "Observer.next", map[string]string{
			at("src/arrow.ts", "observer.next(v)"):  ConfResolved,
			at("src/arrow.ts", "observer?.next(v)"): ConfResolved,
		}},
		{"src/types.ts", "Subject.next", map[string]string{
			at("src/arrow.ts", "observer.next(v)"):  "",
			at("src/arrow.ts", "observer?.next(v)"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
