package query

import "testing"

// tsOuterLiteralFiles: closures using an outer function's parameter
// annotated with a type literal over several lines.
var tsOuterLiteralFiles = map[string]string{
	"src/jsonl.ts": `export interface ProducerOptions {
  formatError?: (opts: { error: unknown; path: string[] }) => unknown;
}

export function run<T>(fn: () => T): T {
  return fn();
}

export async function consumer<THead>(opts: {
  from: string;
  formatError?: (opts: { error: unknown }) => Error;
  producer: ProducerOptions;
}) {
  function decode(value: string) {
    switch (value) {
      case 'a': {
        return run(async () => {
          throw opts.formatError?.({ error: value }) ?? new Error(value); // nested
        });
      }
    }
    opts.producer.formatError?.({ error: value, path: [] }); // through a member
    return opts.formatError?.({ error: value }); // closure
  }
  return decode(opts.from) as THead;
}
`,
}

// TestRefsTypeScriptOuterLiteralParam: a closure's use of an outer
// function's parameter annotated with a type literal reads that
// literal: its own member is no declaration's, and a member it states
// a type for types the chain on.
func TestRefsTypeScriptOuterLiteralParam(t *testing.T) {
	p := refsRepo(t, tsOuterLiteralFiles)
	at := func(marker string) string { return atLine(t, tsOuterLiteralFiles, "src/jsonl.ts", marker) }
	got, _ := refsOf(t, p, "src/jsonl.ts", "ProducerOptions.formatError")
	wantRefs(t, "ProducerOptions.formatError", got, map[string]string{
		at("// nested"):           "",
		at("// closure"):          "",
		at("// through a member"): ConfResolved,
	})
}
