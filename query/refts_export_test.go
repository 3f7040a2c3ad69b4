package query

import "testing"

// tsExportFiles: an index re-exports two modules with "export *", both
// declaring a type of one name, one of them without exporting it; the
// other declarations are exported by export lists, one written over
// several lines.
var tsExportFiles = map[string]string{
	"src/core/procedure.ts": `export type inferOutput<T> = T;
`,
	"src/core/builder.ts": `type inferOutput<T> = T[];

export type Built = inferOutput<string>;
`,
	"src/core/listed.ts": `type Listed = string;

export { Listed };
`,
	"src/core/late.ts": `function late(): number {
  return 1;
}

export {
  late,
};
`,
	"src/core/index.ts": `export * from './procedure';
export * from './builder';
export * from './listed';
export * from './late';
`,
	"src/index.ts": `export {
  type inferOutput,
  type Listed,
  late,
} from './core';
`,
	"src/legacy.ts": `export {
  /**
   * @deprecated write "import { type inferOutput } from './core'"
   */
  type inferOutput,
  /** @deprecated {late} */
  late as lateLegacy,
} from './index';
`,
	"src/use.ts": `import type { inferOutput } from './core';

export type Out = inferOutput<number>;
`,
}

// TestRefsTypeScriptUnexported: an import or a re-export names what its
// module exports; a declaration of the name the module's file keeps to
// itself is not what it names.
func TestRefsTypeScriptUnexported(t *testing.T) {
	p := refsRepo(t, tsExportFiles)
	at := func(path, marker string) string { return atLine(t, tsExportFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/core/builder.ts", "inferOutput", map[string]string{
			at("src/index.ts", "type inferOutput,"):          "", // builder.ts does not export it
			at("src/use.ts", "import type { inferOutput }"):  "",
			at("src/use.ts", "Out = inferOutput"):            "",
			at("src/core/builder.ts", "Built = inferOutput"): ConfResolved,
		}},
		{"src/core/procedure.ts", "inferOutput", map[string]string{
			at("src/index.ts", "type inferOutput,"):         ConfResolved,
			at("src/use.ts", "import type { inferOutput }"): ConfResolved,
			// A doc comment in an export list writes another statement.
			at("src/legacy.ts", "  type inferOutput,"): ConfResolved,
		}},
		{"src/core/listed.ts", "Listed", map[string]string{
			at("src/index.ts", "type Listed,"): ConfResolved, // export { Listed }
		}},
		{"src/core/late.ts", "late", map[string]string{
			at("src/index.ts", "  late,"):              ConfResolved, // an export list over several lines
			at("src/legacy.ts", "late as lateLegacy,"): ConfResolved,
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.path+" "+c.qualname, got, c.want)
	}
}
