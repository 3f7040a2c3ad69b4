package query

import "testing"

// tsRecordFiles: a value destructured from one asserted to be a Record,
// asserted a Record itself, and destructured in turn; an interface
// declares members of the destructured names.
var tsRecordFiles = map[string]string{
	"src/message.ts": `export interface Params {
  path: string;
  lastId?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function assertIsObject(obj: unknown): asserts obj is Record<string, unknown> {
  if (!isObject(obj)) {
    throw new Error('not an object');
  }
}

export function parse(obj: unknown) {
  assertIsObject(obj);
  const { params } = obj;
  assertIsObject(params);
  const { path, lastId } = params;
  return [path, lastId];
}

export function read(p: Params) {
  return p.path;
}
`,
}

// TestRefsTypeScriptRecordValues: a Record's values are of its value
// type; one asserted to be a Record has the Record's keys only, which are
// no declaration's.
func TestRefsTypeScriptRecordValues(t *testing.T) {
	p := refsRepo(t, tsRecordFiles)
	at := func(marker string) string { return atLine(t, tsRecordFiles, "src/message.ts", marker) }
	got, _ := refsOf(t, p, "src/message.ts", "Params.path")
	wantRefs(t, "Params.path", got, map[string]string{
		at("const { path, lastId } = params;"): "",
		at("return p.path;"):                   ConfResolved,
	})
}
