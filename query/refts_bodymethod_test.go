package query

import "testing"

// tsBodyMethodFiles: methods of a literal written in a function's body,
// which the index holds no symbol for, their parameters untyped.
var tsBodyMethodFiles = map[string]string{
	"src/sse.ts": `export interface RequestOptions {
  error: Error;
}

export interface ProducerOptions<TValue = unknown> {
  data: AsyncIterable<TValue>;
  formatError?: (opts: { error: unknown }) => unknown;
  onError?: (opts: RequestOptions) => void;
}

export function producer<TValue = unknown>(
  opts: ProducerOptions<TValue>,
) {
  return opts;
}
`,
	"src/use.ts": `import { producer } from './sse';

export function resolve(config: { sse?: object }, iterable: AsyncIterable<number>) {
  const stream = producer({
    ...config.sse,
    data: iterable,
    formatError(errorOpts) {
      return String(errorOpts.error); // a literal's member
    },
    onError(errorOpts) {
      console.log(errorOpts.error); // a stated type's member
    },
  });
  return stream;
}
`,
}

// TestRefsTypeScriptBodyLiteralMethod: an untyped parameter of a method
// of a literal written in a function's body takes the member's function
// type the literal's type states.
func TestRefsTypeScriptBodyLiteralMethod(t *testing.T) {
	p := refsRepo(t, tsBodyMethodFiles)
	at := func(marker string) string { return atLine(t, tsBodyMethodFiles, "src/use.ts", marker) }
	got, _ := refsOf(t, p, "src/sse.ts", "RequestOptions.error")
	wantRefs(t, "RequestOptions.error", got, map[string]string{
		at("a literal's member"):     "",
		at("a stated type's member"): ConfResolved,
	})
}
