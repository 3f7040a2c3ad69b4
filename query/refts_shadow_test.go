package query

import "testing"

// tsShadowFiles: a test declares a type of its own under the name of a
// type the repository exports and does not import it: the name there is
// the test's type, so neither its indexed access keys nor the file's
// words tie anything to the exported type.
var tsShadowFiles = map[string]string{
	"src/root.ts": `export interface RootTypes {
  ctx: object;
  transformer: boolean;
}

export interface RootConfig {
  transformer: object;
}
`,
	"src/inferrable.ts": `export interface PickTypes {
  transformer: boolean;
}

export type inferClientTypes<T> = T extends { $types: infer U } ? PickTypes : never;
`,
	"src/init.ts": `import type { RootTypes } from './root';

export interface RuntimeConfigOptions<TMeta extends object> {
  meta?: TMeta;
  transformer?: object;
}

type ValidateShape<TActual, TExpected> = TActual extends TExpected
  ? Exclude<keyof TActual, keyof TExpected> extends never
    ? TActual
    : TExpected
  : never;

class Builder<TMeta extends object> {
  create<TOptions extends RuntimeConfigOptions<TMeta>>(
    opts?: ValidateShape<TOptions, RuntimeConfigOptions<TMeta>>,
  ): { $types: RootTypes } {
    return { $types: { ctx: {}, transformer: !!opts } };
  }
}

export const init = new Builder<object>();
`,
	"src/infer.test.ts": `import { init } from './init';
import type { inferClientTypes } from './inferrable';

test('transformed', () => {
  const t = init.create({
    transformer: {},
  });

  type RootTypes = inferClientTypes<typeof t>;

  expectTypeOf<RootTypes['transformer']>().toEqualTypeOf<true>();
});
`,
	"src/stated.test.ts": `import type { RootTypes } from './root';

test('stated', () => {
  expectTypeOf<RootTypes['transformer']>().toEqualTypeOf<boolean>();
});
`,
}

// TestRefsTypeScriptShadowedType: a type declared in a file, and not
// imported there, is the file's own, whatever type elsewhere shares its
// name.
func TestRefsTypeScriptShadowedType(t *testing.T) {
	p := refsRepo(t, tsShadowFiles)
	at := func(path, marker string) string { return atLine(t, tsShadowFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/root.ts", "RootTypes.transformer", map[string]string{
			at("src/infer.test.ts", "RootTypes['transformer']"):  "", // the test's own RootTypes
			at("src/infer.test.ts", "transformer: {}"):           "", // the file names its own RootTypes
			at("src/stated.test.ts", "RootTypes['transformer']"): ConfResolved,
			at("src/init.ts", "transformer: !!opts"):             ConfResolved,
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
