package query

import "testing"

// tsMappedFiles: literals returned by callbacks that map or flatMap of
// an array receives, which infer their result from the callback.
var tsMappedFiles = map[string]string{
	"src/types.ts": `export interface CallInfo {
  result: () => unknown;
}

export interface Producer {
  data: unknown[];
}

export function produce(opts: Producer) {
  return opts.data;
}
`,
	"src/resolve.ts": `import type { CallInfo } from './types';
import { produce } from './types';

export function resolve(calls: CallInfo[], more: { map(fn: (c: CallInfo) => CallInfo): void }) {
  const results = calls.map((call): Promise<unknown> => Promise.resolve(call));
  const stream = produce({
    data: results.map(async (res, index) => {
      if (index > 0) {
        return { error: res };
      }
      return {
        result: Promise.resolve({ index }),
      };
    }),
  });
  const nested = calls.map((call) => {
    function inner(): CallInfo {
      return { result: () => 'inner' };
    }
    return inner();
  });
  const typed: CallInfo[] = calls.map((call) => {
    return { result: () => call };
  });
  more.map((call) => {
    return {
      result: call.result,
    };
  });
  return [stream, typed, nested];
}
`,
}

// TestRefsTypeScriptMappedResults: what a callback stating no return type
// returns to an array's map is a type of its own; a method of the name
// on a value of another type is left to the other rules.
func TestRefsTypeScriptMappedResults(t *testing.T) {
	p := refsRepo(t, tsMappedFiles)
	at := func(path, marker string) string { return atLine(t, tsMappedFiles, path, marker) }
	got, _ := refsOf(t, p, "src/types.ts", "CallInfo.result")
	wantRefs(t, "CallInfo.result", got, map[string]string{
		at("src/resolve.ts", "result: Promise.resolve"): "",
		at("src/resolve.ts", "result: call.result"):     ConfLikely,   // not an array: kept
		at("src/resolve.ts", "result: () => call"):      ConfLikely,   // the annotation may infer the result
		at("src/resolve.ts", "result: () => 'inner'"):   ConfResolved, // a function inside the callback
	})
}
