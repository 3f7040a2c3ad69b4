package query

import "testing"

// tsPatternDefaultFiles: destructuring patterns giving a key a default.
var tsPatternDefaultFiles = map[string]string{
	"src/sse.ts": `export interface ProducerOptions {
  serialize?: (v: unknown) => unknown;
}

export interface ConsumerOptions {
  serialize?: (v: unknown) => unknown;
}

const identity = (v: unknown) => v;

export function producer(opts: ProducerOptions) {
  const { serialize = identity } = opts; // a default
  return serialize;
}

export function other(flag: boolean) {
  let serialize = identity;
  if (flag) { serialize = (v: unknown) => v; } // a block's assignment
  return serialize;
}
`,
}

// TestRefsTypeScriptPatternDefault: a key of a destructuring pattern
// given a default ("const { serialize = identity } = opts") is the
// property of the value destructured, not a local's assignment, which a
// block's "{ name = v; }" is.
func TestRefsTypeScriptPatternDefault(t *testing.T) {
	p := refsRepo(t, tsPatternDefaultFiles)
	at := func(marker string) string { return atLine(t, tsPatternDefaultFiles, "src/sse.ts", marker) }
	got, _ := refsOf(t, p, "src/sse.ts", "ProducerOptions.serialize")
	if _, ok := got[at("a default")]; !ok {
		t.Errorf("ProducerOptions.serialize: %s left out, want it listed (all: %v)", at("a default"), got)
	}
	wantRefs(t, "ProducerOptions.serialize", got, map[string]string{at("a block's assignment"): ""})
}
