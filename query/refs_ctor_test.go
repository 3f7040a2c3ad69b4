package query

import "testing"

// tsCtorFiles: a class constructed, extended, exported, imported and
// named as a type and a value.
var tsCtorFiles = map[string]string{
	"src/a.ts": `export class C {
  constructor(public a: number) {}
  static make() {
    return new C(1);
  }
}

export class D extends C {
  constructor() {
    super(2);
  }
}
`,
	"src/b.ts": `import { C, D } from './a';
export { C };

const c = new C(3);
let x: C = c;
const k = C;
const d = new D();
export default C;
`,
	"src/index.ts": `export {
  C,
  D,
} from './a';
`,
}

// TestRefsTypeScriptConstructor: a constructor's references are the
// lines constructing its class, a subclass constructor's super call and
// the export lists naming the class, as the language service counts them;
// the class's other uses (an import, a type, a value, another class's
// construction) are not.
func TestRefsTypeScriptConstructor(t *testing.T) {
	p := refsRepo(t, tsCtorFiles)
	at := func(path, marker string) string { return atLine(t, tsCtorFiles, path, marker) }
	got, _ := refsOf(t, p, "src/a.ts", "C.constructor")
	wantRefs(t, "C.constructor", got, map[string]string{
		at("src/a.ts", "new C(1)"):        ConfResolved,
		at("src/a.ts", "super(2)"):        ConfResolved,
		at("src/b.ts", "export { C }"):    ConfResolved,
		at("src/b.ts", "new C(3)"):        ConfResolved,
		at("src/index.ts", "  C,"):        ConfResolved,
		at("src/b.ts", "import { C, D }"): "",
		at("src/b.ts", "let x: C"):        "",
		at("src/b.ts", "const k = C"):     "",
		at("src/b.ts", "new D()"):         "",
		at("src/b.ts", "export default"):  "",
		at("src/index.ts", "  D,"):        "",
	})
}
