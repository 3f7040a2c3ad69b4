package query

import "testing"

// tsElementFiles: object literals written as elements of an array
// literal whose type a return type or an annotation states.
var tsElementFiles = map[string]string{
	"src/types.ts": `export interface RequestInfo {
  signal: AbortSignal;
  data: string;
}

export interface Item {
  data: string;
}
`,
	"src/resolve.ts": `import type { RequestInfo, Item } from './types';

type ResultTuple<T> = [undefined, T] | [Error, undefined];

export async function resolve(info: RequestInfo, calls: string[]) {
  interface ResultOk {
    data: unknown;
    signal?: AbortSignal;
  }
  type Result = ResultTuple<ResultOk>;
  const rpcCalls = calls.map(async (call): Promise<Result> => {
    try {
      return [
        undefined,
        {
          data: call,
          signal:
            call === 'subscription'
              ? info.signal
              : undefined,
        },
      ];
    } catch (cause) {
      return [cause as Error, undefined];
    }
  });
  return rpcCalls;
}

export function items(): Item[] {
  const pair: [RequestInfo, Item] = [info(), { data: 'pair' }];
  const labelled: [string, Item] = ['a, b', { data: 'labelled' }];
  return [{ data: 'a' }, pair[1]];
}

function info(): RequestInfo {
  return { signal: new AbortController().signal, data: 'info' };
}

export function spread(xs: Item[]): [Item, RequestInfo] {
  return [...xs, { data: 'spread' }] as never;
}
`,
}

// TestRefsTypeScriptArrayElements: a literal in an array literal is
// written for the element type the array's stated type gives its
// position: a tuple's (an alias's of tuples, given its type arguments,
// a local alias's), an array's.
func TestRefsTypeScriptArrayElements(t *testing.T) {
	p := refsRepo(t, tsElementFiles)
	at := func(path, marker string) string { return atLine(t, tsElementFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/resolve.ts", "resolve.ResultOk.signal", map[string]string{
			at("src/resolve.ts", "          signal:"): ConfResolved,
		}},
		{"src/types.ts", "RequestInfo.signal", map[string]string{
			at("src/resolve.ts", "          signal:"): "",
			at("src/resolve.ts", "? info.signal"):     ConfResolved,
		}},
		{"src/types.ts", "Item.data", map[string]string{
			at("src/resolve.ts", "data: 'pair'"): ConfResolved,
			at("src/resolve.ts", "data: 'a'"):    ConfResolved,
			at("src/resolve.ts", "data: call"):   "",
			// the comma inside the string separates no elements
			at("src/resolve.ts", "data: 'labelled'"): ConfResolved,
		}},
		{"src/types.ts", "RequestInfo.data", map[string]string{
			at("src/resolve.ts", "data: 'pair'"):     "",
			at("src/resolve.ts", "data: 'a'"):        "",
			at("src/resolve.ts", "data: 'labelled'"): "",
			at("src/resolve.ts", "data: call"):       "",
			at("src/resolve.ts", "data: 'info'"):     ConfResolved,
			at("src/resolve.ts", "data: 'spread'"):   ConfNameOnly, // a spread: its position is unknown
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
