package query

import "testing"

// tsMethodFiles: methods written as shorthand in object literals, typed
// by the function the literal is passed to: a parameter of stated
// function type, a runtime constructor.
var tsMethodFiles = map[string]string{
	"src/types.ts": `export interface Observer<T> {
  next: (value: T) => void;
  error: (err: unknown) => void;
}

export interface Failure {
  error: string;
}
`,
	"src/observable.ts": `import type { Observer, Failure } from './types';

export function observable<T>(
  subscribe: (observer: Observer<T>) => void,
): Failure {
  const self = {
    subscribe(observer: Observer<T>) {
      subscribe({
        next(value) {
          observer.next(value);
        },
        error(err) {
          observer.error(err);
        },
      });
    },
  };
  self.subscribe({ next() {}, error() {} });
  return { error: 'none' };
}

export function toStream<T>(source: T): unknown {
  return new ReadableStream({
    start(controller) {
      const onData = (chunk: T) => {
        controller.enqueue(chunk);
      };
      onData(source);
      controller.error(new Error('x'));
    },
  });
}
`,
}

// TestRefsTypeScriptLiteralMethods: a method of a literal passed to a
// parameter of stated function type is a member of that function's
// parameter's type (the parameter's list over several lines is no
// nested function's); a method's parameter the runtime's constructor
// gives is the runtime's.
func TestRefsTypeScriptLiteralMethods(t *testing.T) {
	p := refsRepo(t, tsMethodFiles)
	at := func(marker string) string { return atLine(t, tsMethodFiles, "src/observable.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"Observer.error", map[string]string{
			at("error(err) {"):             ConfResolved,
			at("controller.error("):        "",
			at("observer.error(err)"):      ConfResolved,
			at("return { error: 'none' }"): "",
		}},
		{"Failure.error", map[string]string{
			at("error(err) {"):             "",
			at("controller.error("):        "",
			at("return { error: 'none' }"): ConfResolved,
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/types.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
