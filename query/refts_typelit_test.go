package query

import "testing"

// tsTypeLitFiles: keys of type literals nested in declarations' bodies
// declare the literals' own members.
var tsTypeLitFiles = map[string]string{
	"src/config.ts": `export interface RootConfig {
  $types: { ctx: unknown };
}
`,
	"src/procedure.ts": `import type { RootConfig } from './config';

export interface Procedure<
  TType extends string,
  TDef extends RootConfig,
> {
  _def: {
    /**
     * Only types.
     */
    $types: { // an interface member's literal
      input: TDef['$types'];
    };
    type: TType;
  };
}

export type Built<T> = T & {
  meta: {
    $types: { // an alias member's literal
      output: string;
    };
  };
};

export function read(c: RootConfig) {
  const v = {
    $types: { // a value's literal
      x: 1,
    },
  };
  return [c.$types, v];
}
`,
}

// TestRefsTypeScriptNestedTypeKeys: a key of a type literal an
// interface's or an alias's member opens is no use of a definition of
// its name; a value's literal keeps the rules of literals.
func TestRefsTypeScriptNestedTypeKeys(t *testing.T) {
	p := refsRepo(t, tsTypeLitFiles)
	at := func(marker string) string { return atLine(t, tsTypeLitFiles, "src/procedure.ts", marker) }
	got, _ := refsOf(t, p, "src/config.ts", "RootConfig.$types")
	wantRefs(t, "RootConfig.$types", got, map[string]string{
		at("an interface member's literal"): "",
		at("an alias member's literal"):     "",
		at("a value's literal"):             "",
		at("c.$types"):                      ConfResolved,
		at("input: TDef['$types']"):         ConfResolved,
	})
}
