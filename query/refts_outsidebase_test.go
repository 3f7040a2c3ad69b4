package query

import "testing"

// tsOutsideBaseFiles: a class of the repository extending the runtime's
// Error, whose stack neither it nor a base of the repository declares.
var tsOutsideBaseFiles = map[string]string{
	"src/error.ts": `export class TRPCError extends Error {
  public readonly code: string = '';
}

export interface DefaultErrorData {
  code: string;
  stack?: string;
}

export interface ErrorLike extends Error {
  stack?: string;
}

export function shape(opts: { error: TRPCError }, e: TRPCError) {
  const data: DefaultErrorData = { code: '' };
  if (typeof opts.error.stack === 'string') { // literal param
    data.stack = opts.error.stack; // both
  }
  return e.stack; // stated param
}
`,
}

// TestRefsTypeScriptOutsideBaseMember: a member a value's type inherits
// from a base outside the repository (the runtime's Error) is that
// base's, no unrelated interface's of the name; an interface extending
// that base too overrides its member, and stays open to the use.
func TestRefsTypeScriptOutsideBaseMember(t *testing.T) {
	p := refsRepo(t, tsOutsideBaseFiles)
	at := func(marker string) string { return atLine(t, tsOutsideBaseFiles, "src/error.ts", marker) }
	got, _ := refsOf(t, p, "src/error.ts", "DefaultErrorData.stack")
	wantRefs(t, "DefaultErrorData.stack", got, map[string]string{
		at("literal param"): "",
		at("stated param"):  "",
		at("// both"):       ConfResolved,
	})
	got, _ = refsOf(t, p, "src/error.ts", "ErrorLike.stack")
	if _, ok := got[at("stated param")]; !ok {
		t.Errorf("ErrorLike.stack: %s left out, want it listed (all: %v)", at("stated param"), got)
	}
}
