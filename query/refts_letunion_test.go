package query

import "testing"

// tsLetUnionFiles: a local declared with an indexed access of a generic
// interface whose member a generic base states as a union, assigned
// below.
var tsLetUnionFiles = map[string]string{
	"src/envelopes.ts": `export namespace JSONRPC2 {
  export interface BaseEnvelope {
    id?: string | null;
  }
  export interface ResultResponse<TResult = unknown> extends BaseEnvelope {
    result: TResult;
  }
}

export interface TRPCResult<TData = unknown> {
  data: TData;
  type?: 'data';
  id?: string;
}

export interface TRPCResultMessage<TData>
  extends JSONRPC2.ResultResponse<
    | { type: 'started'; data?: never }
    | { type: 'stopped'; data?: never }
    | TRPCResult<TData>
  > {}

export interface Notification {
  id: string;
  data: string;
}
`,
	"src/ws.ts": `import type { TRPCResultMessage } from './envelopes';

export function run(value: unknown, id: string) {
  let result: null | TRPCResultMessage<unknown>['result'];
  result = {
    type: 'data',
    data: value,
  };
  result.id = id; // assigned id
  result.data = { value }; // assigned data
  return result;
}
`,
}

// TestRefsTypeScriptLetUnion: "let v: T['k'];" whose indexed access
// reaches a union (a generic base's member, given a type argument) types
// v's members by the parts declaring them: the named type's, not
// another type's of the name.
func TestRefsTypeScriptLetUnion(t *testing.T) {
	p := refsRepo(t, tsLetUnionFiles)
	at := func(marker string) string { return atLine(t, tsLetUnionFiles, "src/ws.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"TRPCResult.id", map[string]string{at("assigned id"): ConfResolved}},
		{"JSONRPC2.BaseEnvelope.id", map[string]string{at("assigned id"): ""}},
		{"Notification.id", map[string]string{at("assigned id"): ""}},
		{"TRPCResult.data", map[string]string{at("assigned data"): ConfResolved}},
		{"Notification.data", map[string]string{at("assigned data"): ""}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/envelopes.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
