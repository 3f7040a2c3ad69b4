package query

import "testing"

// tsValidateFiles: a literal passed to a parameter whose type checks the
// callee's own type parameter against a shape (ValidateShape<T, S>).
var tsValidateFiles = map[string]string{
	"src/types.ts": `export type ValidateShape<TActual, TExpected> = TActual extends TExpected
  ? Exclude<keyof TActual, keyof TExpected> extends never
    ? TActual
    : TExpected
  : never;

export interface Transformer {
  serialize(v: unknown): unknown;
  deserialize(v: unknown): unknown;
}

export interface Codec {
  deserialize(v: unknown): unknown;
}

export interface Options {
  transformer?: Transformer;
  isServer?: boolean;
}

export class Builder {
  create<TOptions extends Options>(
    opts?: ValidateShape<TOptions, Options>,
  ): TOptions {
    return opts as TOptions;
  }
}

export const init = new Builder();
`,
	"src/use.test.ts": `import { init } from './types';
import type { Transformer } from './types';

test('inferred', () => {
  const t = init.create({
    isServer: false, // the literal's own
    transformer: {
      deserialize: (v) => v, // a nested literal's own
    },
  });
  const stated: Transformer = {
    serialize: (v) => v,
    deserialize: (v) => v, // stated
  };
  init.create({ transformer: stated });
  return t;
});
`,
}

// TestRefsTypeScriptValidatedShape: a literal passed to a parameter of a
// conditional alias whose branches are its own type parameters, given
// the callee's own type parameter (ValidateShape<TOptions, Options>),
// infers that type parameter as the literal's own type, as the language
// service does: its keys, and those of the literals nested in it, are
// no declaration's.
func TestRefsTypeScriptValidatedShape(t *testing.T) {
	p := refsRepo(t, tsValidateFiles)
	at := func(marker string) string { return atLine(t, tsValidateFiles, "src/use.test.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"Transformer.deserialize", map[string]string{
			at("a nested literal's own"): "",
			at("// stated"):              ConfResolved,
		}},
		{"Options.isServer", map[string]string{
			at("the literal's own"): "",
		}},
		{"Codec.deserialize", map[string]string{
			at("a nested literal's own"): "",
			at("// stated"):              "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/types.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
