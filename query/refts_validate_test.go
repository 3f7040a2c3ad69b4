package query

import "testing"

// tsValidateFiles: a method's parameter stated as a conditional alias of
// the method's type parameter and its constraint, the constraint an
// interface extending wrappers of a generic interface; another interface
// declares a member of the same name.
var tsValidateFiles = map[string]string{
	"src/config.ts": `export interface RootConfig<TTypes extends { ctx: object }> {
  $types: TTypes;
  isServer: boolean;
  allowOutside: boolean;
  transformer: boolean;
}

export interface OtherConfig {
  isServer: boolean;
}
`,
	"src/types.ts": `export type ValidateShape<TActual, TExpected> =
  TActual extends TExpected
    ? Exclude<keyof TActual, keyof TExpected> extends never
      ? TActual
      : TExpected
    : never;
`,
	"src/init.ts": `import type { RootConfig } from './config';
import type { ValidateShape } from './types';

export interface RuntimeOptions<TContext extends object>
  extends Partial<Omit<RootConfig<{ ctx: TContext }>, '$types' | 'transformer'>> {
  transformer?: string;
}

class Builder<TContext extends object> {
  create<TOptions extends RuntimeOptions<TContext>>(
    opts?: ValidateShape<TOptions, RuntimeOptions<TContext>>,
  ) {
    {
      const isServer: boolean = opts?.isServer ?? true;
      if (!isServer && opts?.allowOutside !== true) {
        throw new Error('outside');
      }
    }
    return opts?.transformer;
  }
}

export const init = new Builder();

export function readConfig(c: RootConfig<{ ctx: object }>) {
  return c.transformer;
}
`,
}

// TestRefsTypeScriptValidatedParam: a member of a parameter stated as a
// conditional type is a member of the type every branch has it from, and
// a base given through Omit<T, K> passes on none of K.
func TestRefsTypeScriptValidatedParam(t *testing.T) {
	p := refsRepo(t, tsValidateFiles)
	at := func(path, marker string) string { return atLine(t, tsValidateFiles, path, marker) }
	cases := []struct {
		qualname string
		want     map[string]string
	}{
		{"RootConfig.isServer", map[string]string{at("src/init.ts", "opts?.isServer"): ConfResolved}},
		{"RootConfig.allowOutside", map[string]string{at("src/init.ts", "opts?.allowOutside"): ConfResolved}},
		{"OtherConfig.isServer", map[string]string{at("src/init.ts", "opts?.isServer"): ""}},
		// Omitted from the base: the options' own member, not RootConfig's.
		{"RootConfig.transformer", map[string]string{
			at("src/init.ts", "transformer?: string;"):    "",
			at("src/init.ts", "return opts?.transformer"): "",
			at("src/init.ts", "return c.transformer"):     ConfResolved,
		}},
		{"RuntimeOptions.transformer", map[string]string{
			at("src/init.ts", "return c.transformer"): "",
		}},
	}
	for _, c := range cases {
		path := "src/config.ts"
		if c.qualname == "RuntimeOptions.transformer" {
			path = "src/init.ts"
		}
		got, _ := refsOf(t, p, path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
