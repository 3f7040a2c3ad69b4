package query

import "testing"

// tsOutsideFiles: locals set from calls of functions neither the
// repository declares nor its imports name (a test runner's globals).
var tsOutsideFiles = map[string]string{
	"src/info.ts": `export interface Info {
  calls: number[];
}

export function make(): Info {
  return { calls: [] };
}
`,
	"src/use.test.ts": `import { make } from './info';

test('spy', async () => {
  const spy = vi.fn();
  spy.mock.calls; // spy's
  const timer = await vi.waitFor();
  timer.calls; // timer's
  const held = hold(make());
  held.calls; // held's
  const info = make();
  info.calls; // info's
});
`,
}

// TestRefsTypeScriptOutsideCalls: a local set from a call of a package's
// or the runtime's function given no arguments is a value of the
// package's types, whose members are no definition's; given arguments,
// the call may return one of the repository's types, and its members stay
// open.
func TestRefsTypeScriptOutsideCalls(t *testing.T) {
	p := refsRepo(t, tsOutsideFiles)
	at := func(marker string) string { return atLine(t, tsOutsideFiles, "src/use.test.ts", marker) }
	got, _ := refsOf(t, p, "src/info.ts", "Info.calls")
	wantRefs(t, "Info.calls", got, map[string]string{
		at("spy's"):   "",
		at("timer's"): "",
		at("held's"):  ConfLikely,
		at("info's"):  ConfResolved,
	})
}
