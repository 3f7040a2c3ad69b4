package query

import "testing"

// tsBlockScopeFiles: a local declared in a block that closes above a
// use (a closure's, a sibling case block's) is another variable than
// the use's, whatever type it states.
var tsBlockScopeFiles = map[string]string{
	"src/result.ts": `export interface Ok {
  data: unknown;
}

export interface Shape {
  data: { code: number };
}

export type Tuple<T> = [undefined, T] | [Error, undefined];

export function run<T>(fn: () => T): T {
  return fn();
}

export async function respond(calls: Promise<Tuple<Ok>>[], kind: string) {
  const manager = run(() => {
    let result: Tuple<Shape> | undefined = undefined;
    return () => result;
  });
  switch (kind) {
    case 'a': {
      const res: Shape = { data: { code: 1 } };
      return res;
    }
  }
  const [, result] = await calls[0]!;
  const [, res] = await calls[1]!;
  return [manager, result?.data, res?.data];
}
`,
}

// TestRefsTypeScriptBlockScope: the use's own binding types it, not a
// declaration of the name in a block closed above it.
func TestRefsTypeScriptBlockScope(t *testing.T) {
	p := refsRepo(t, tsBlockScopeFiles)
	use := atLine(t, tsBlockScopeFiles, "src/result.ts", "result?.data") // res?.data too
	for qualname, want := range map[string]string{"Ok.data": ConfResolved, "Shape.data": ""} {
		got, _ := refsOf(t, p, "src/result.ts", qualname)
		wantRefs(t, qualname, got, map[string]string{use: want})
	}
}
