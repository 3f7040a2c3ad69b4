package query

import (
	"strings"
	"testing"
)

// tsIndexFiles: members named by the quoted keys of indexed access types
// whose indexed type is itself indexed, given type arguments, a type
// parameter narrowed by a conditional type, or InstanceType of a
// constructor type.
var tsIndexFiles = map[string]string{
	"src/router.ts": `export interface RootConfig {
  $types: { ctx: object };
}

export interface RouterDef {
  _config: RootConfig;
}

export interface Router {
  _def: RouterDef;
}

export type AnyRouter = Router;

export type RootTypes<TRouter extends AnyRouter> =
  TRouter['_def']['_config']['$types'];

export type FirstConfig<TRouters extends AnyRouter[]> = TRouters[0]['_def']['_config'];
`,
	"src/init.ts": `import type { RootConfig } from './router';

export interface InitLike {
  _config: RootConfig;
}

type RouterLike = {
  _def: InitLike;
};

export type PickTypes<T extends object> =
  T extends InitLike
    ? T['_config']['$types']
    : T extends RouterLike
      ? T['_def']['_config']['$types']
      : never;
`,
	"src/envelopes.ts": `export interface ResultResponse<TResult> {
  result: TResult;
}

export interface ResultMessage<TData> extends ResultResponse<TData> {}

export interface CallInfo {
  result: string;
}

export type ResultOf<T> = T['result'];

export function first(): unknown {
  let result: null | ResultMessage<unknown>['result'] = null;
  return result;
}
`,
	"src/events.ts": `export interface Instance {
  addEventListener(type: string): void;
}

export interface Target {
  addEventListener(type: string): void;
}

export type AnyConstructor = new (url: string) => Instance;

export type ListenerOf<T extends AnyConstructor> = Parameters<
  InstanceType<T>['addEventListener']
>[0];
`,
}

// TestRefsTypeScriptIndexedAccess: each key of an indexed access type is
// a member of the type the keys before it reach, from the indexed type's
// constraint, type arguments or constructed instance.
func TestRefsTypeScriptIndexedAccess(t *testing.T) {
	p := refsRepo(t, tsIndexFiles)
	at := func(path, marker string) string { return atLine(t, tsIndexFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/router.ts", "RouterDef._config", map[string]string{
			at("src/router.ts", "TRouter['_def']['_config']"): ConfResolved,
			at("src/router.ts", "TRouters[0]['_def']"):        ConfResolved,
			at("src/init.ts", "T['_def']['_config']"):         "", // a RouterLike's _def is an InitLike
		}},
		{"src/init.ts", "InitLike._config", map[string]string{
			at("src/init.ts", "T['_config']['$types']"):       ConfResolved,
			at("src/init.ts", "T['_def']['_config']"):         ConfResolved,
			at("src/router.ts", "TRouter['_def']['_config']"): "",
		}},
		{"src/router.ts", "Router._def", map[string]string{
			at("src/router.ts", "TRouter['_def']['_config']"): ConfResolved,
			at("src/init.ts", "T['_def']['_config']"):         "",
		}},
		{"src/init.ts", "RouterLike._def", map[string]string{
			at("src/init.ts", "T['_def']['_config']"):         ConfResolved, // narrowed by "T extends RouterLike ?"
			at("src/router.ts", "TRouter['_def']['_config']"): "",
		}},
		{"src/envelopes.ts", "ResultResponse.result", map[string]string{
			at("src/envelopes.ts", "ResultMessage<unknown>['result']"): ConfResolved, // not the local
			at("src/envelopes.ts", "T['result']"):                      "",           // T is anything
		}},
		{"src/envelopes.ts", "CallInfo.result", map[string]string{
			at("src/envelopes.ts", "ResultMessage<unknown>['result']"): "",
		}},
		{"src/events.ts", "Instance.addEventListener", map[string]string{
			at("src/events.ts", "InstanceType<T>['addEventListener']"): ConfResolved,
		}},
		{"src/events.ts", "Target.addEventListener", map[string]string{
			at("src/events.ts", "InstanceType<T>['addEventListener']"): "",
		}},
	}
	for _, c := range cases {
		got, refs := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
		if c.qualname == "CallInfo.result" && !leftOutFor(refs, "indexed access type's key") {
			t.Errorf("CallInfo.result: left_out %v, want T['result'] counted", refs.LeftOut)
		}
	}
}

// leftOutFor reports whether the answer counts a line left out for a
// reason holding word.
func leftOutFor(refs *References, word string) bool {
	for _, l := range refs.LeftOut {
		if strings.Contains(l.Reason, word) && l.Lines > 0 {
			return true
		}
	}
	return false
}
