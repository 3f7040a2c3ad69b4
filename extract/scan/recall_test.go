package scan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract/internal/source"
)

// BenchmarkRecall measures the definition recall and the speed of the C,
// C++, C#, Haskell and Swift scanners against an independent reference, on
// every file under $RECALL:
//
//	RECALL=path/to/fmt/include go test ./extract/scan -run '^$' -bench Recall
//
// The reference is Universal Ctags (`ctags --output-format=json
// --fields=+neKS --kinds-all='*' -f - FILE`, on PATH) for C, C++, C# and
// Haskell. Ctags has no Swift parser; for Swift (and as a second reference
// for the others with RECALL_REF=tsref) the reference is the C tree-sitter
// runtime compiled to WebAssembly, run by node from $RECALL_TSREF, a
// directory prepared with
//
//	npm install web-tree-sitter@0.20.8 tree-sitter-wasms@0.1.13
//
// Kinds are aligned: function definitions, classes/structs/unions/enums,
// interfaces, namespaces, typedefs/aliases, methods and (C#) properties;
// not prototypes, locals, parameters, enumerators or members. A reference
// definition is found when a symbol of the same name spans its line.
//
// One sub-benchmark per reference language (a C++ header is C++) reads
// all its files per op; it reports recall %, the reference definitions,
// the symbols read and the files repaired or stopped (fallback).
// RECALL_MISSED=n logs n missed definitions.
func BenchmarkRecall(b *testing.B) {
	dir := os.Getenv("RECALL")
	if dir == "" {
		b.Skip("set RECALL=dir")
	}
	maxMissed := 0
	fmt.Sscanf(os.Getenv("RECALL_MISSED"), "%d", &maxMissed)
	type file struct {
		path, lang string
		src        []byte
		ref        []refDef
	}
	byRef := map[string][]file{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		lang := recallLanguages[strings.ToLower(filepath.Ext(p))]
		if lang == "" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		refLang := lang
		if lang == "c" && cLooksCpp(p, src) {
			refLang = "cpp"
		}
		ref, err := recallReference(refLang, p)
		if err != nil {
			b.Logf("%s: no reference: %v", p, err)
		}
		byRef[refLang] = append(byRef[refLang], file{p, lang, src, ref})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range slices.Sorted(maps.Keys(byRef)) {
		files := byRef[l]
		b.Run(l, func(b *testing.B) {
			var size int64
			for _, f := range files {
				size += int64(len(f.src))
			}
			b.SetBytes(size)
			var found, refs, syms, repaired, fallback int
			var missed []string
			for b.Loop() {
				found, refs, syms, repaired, fallback, missed = 0, 0, 0, 0, 0, nil
				for _, f := range files {
					out, err := Read(context.Background(), f.lang, f.path, f.src, 80)
					refs += len(f.ref)
					if err != nil {
						fallback++
						continue
					}
					if out.Repair != "" {
						repaired++
					}
					syms += len(out.Symbols)
					n, miss := recallMatch(f.ref, out.Symbols, f.lang)
					found += n
					for _, m := range miss {
						missed = append(missed, f.path+": "+m)
					}
				}
			}
			b.ReportMetric(100*float64(found)/float64(max(refs, 1)), "recall%")
			b.ReportMetric(float64(refs), "refdefs")
			b.ReportMetric(float64(syms), "symbols")
			b.ReportMetric(float64(repaired), "repaired")
			b.ReportMetric(float64(fallback), "fallback")
			for i := 0; i < len(missed) && i < maxMissed; i++ {
				b.Logf("missed %s", missed[i])
			}
		})
	}
}

// recallLanguages are the scanned languages by extension.
var recallLanguages = map[string]string{
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp",
	".cs": "csharp", ".hs": "haskell", ".swift": "swift",
}

// refDef is a reference definition.
type refDef struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Line      int    `json:"line"`
	ScopeKind string `json:"scopeKind"`
}

// recallKinds are the reference kinds counted per language (ctags kind
// names; "tsref" kinds are already filtered by the script).
var recallKinds = map[string]map[string]bool{
	"c":       {"function": true, "struct": true, "union": true, "enum": true, "typedef": true},
	"cpp":     {"function": true, "class": true, "struct": true, "union": true, "enum": true, "namespace": true, "typedef": true},
	"csharp":  {"class": true, "struct": true, "interface": true, "enum": true, "method": true, "property": true, "namespace": true},
	"haskell": {"function": true, "type": true, "module": true},
}

// csReserved are C#'s reserved keywords and the accessor keywords get,
// set and init, which ctags mistakes for property names.
var csReserved = func() map[string]bool {
	m := map[string]bool{"get": true, "set": true, "init": true}
	for _, w := range strings.Fields(`abstract as base bool break byte case catch char checked class const
		continue decimal default delegate do double else enum event explicit extern false finally fixed float
		for foreach goto if implicit in int interface internal is lock long namespace new null object operator
		out override params private protected public readonly ref return sbyte sealed short sizeof stackalloc
		static string struct switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual
		void volatile while`) {
		m[w] = true
	}
	return m
}()

func recallReference(lang, p string) ([]refDef, error) {
	if lang == "swift" || os.Getenv("RECALL_REF") == "tsref" {
		return tsrefReference(lang, p)
	}
	out, err := exec.Command("ctags", "--output-format=json", "--fields=+neKS", "--kinds-all=*", "-f", "-", p).Output()
	if err != nil {
		return nil, err
	}
	if lang == "c" {
		// ctags reads .h as C++; ask for C explicitly for C files.
		if strings.HasSuffix(p, ".h") {
			out, err = exec.Command("ctags", "--language-force=C", "--output-format=json", "--fields=+neKS", "--kinds-all=*", "-f", "-", p).Output()
			if err != nil {
				return nil, err
			}
		}
	}
	kinds := recallKinds[lang]
	var defs []refDef
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d refDef
		if json.Unmarshal(sc.Bytes(), &d) != nil || !kinds[d.Kind] || d.Name == "" || strings.HasPrefix(d.Name, "__anon") {
			continue
		}
		if d.ScopeKind == "function" || d.ScopeKind == "method" {
			continue // local types and aliases inside function bodies
		}
		// Operators are compared without spaces: `operator ==`.
		if strings.HasPrefix(d.Name, "operator ") {
			if rest := d.Name[len("operator "):]; rest != "" && !source.IsWordByte(rest[0]) {
				d.Name = "operator" + strings.ReplaceAll(rest, " ", "")
			}
		}
		if lang == "haskell" && d.Kind == "module" {
			// ctags names `module XMonad.Core` "XMonad"
			continue
		}
		if lang == "haskell" {
			// ctags tags every equation and signature of a Haskell
			// function, and fixity declarations as functions named
			// infixl/infixr/infix: count each name once.
			if d.Name == "infixl" || d.Name == "infixr" || d.Name == "infix" || seen[d.Name] {
				continue
			}
			seen[d.Name] = true
		}
		if lang == "csharp" && csReserved[d.Name] {
			// ctags's C# parser tags statements inside bodies as
			// members: `finally {` as a property, `lock (x) {` as a
			// method, `get {` as a property. A reserved word cannot
			// name a declaration (without @), so these are not
			// definitions. (It also tags calls such as `x.Add(y);` and
			// generic constraints; those stay in the reference and count
			// as misses.)
			continue
		}
		if lang == "csharp" && d.Kind != "namespace" {
			// explicit interface implementations: `IFoo.Bar` is Bar
			if i := strings.LastIndexByte(d.Name, '.'); i >= 0 {
				d.Name = d.Name[i+1:]
			}
		}
		if lang == "csharp" && d.Kind == "namespace" {
			// A namespace is tagged once per file that opens it.
			if seen["ns "+d.Name] {
				continue
			}
			seen["ns "+d.Name] = true
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// recallMatch counts the reference definitions found among syms: same name,
// the reference line inside the symbol's span (Haskell: same name anywhere,
// ctags lines point at single equations). Matching is one to one.
func recallMatch(ref []refDef, syms []Symbol, lang string) (int, []string) {
	byName := map[string][]int{}
	for i, s := range syms {
		name := s.Name
		byName[name] = append(byName[name], i)
		if j := strings.LastIndexByte(name, '.'); j >= 0 {
			byName[name[j+1:]] = append(byName[name[j+1:]], i)
		}
	}
	used := make([]bool, len(syms))
	matched := make([]bool, len(ref))
	found := 0
	// Two passes: first a symbol starting near the reference line (so a
	// member's tag does not take its class), then any symbol spanning it.
	for pass := 0; pass < 2; pass++ {
		for di, d := range ref {
			if matched[di] {
				continue
			}
			best := -1
			for _, i := range byName[d.Name] {
				if used[i] {
					continue
				}
				s := &syms[i]
				ok := lang == "haskell" || d.Line >= s.StartLine && d.Line <= s.EndLine
				if pass == 0 && lang != "haskell" {
					ok = d.Line >= s.StartLine-1 && d.Line <= s.StartLine+3 && d.Line <= s.EndLine+1
				}
				if ok && (best < 0 || absInt(syms[i].StartLine-d.Line) < absInt(syms[best].StartLine-d.Line)) {
					best = i
				}
			}
			if best >= 0 {
				used[best] = true
				matched[di] = true
				found++
			}
		}
	}
	var missed []string
	for di, d := range ref {
		if !matched[di] {
			missed = append(missed, fmt.Sprintf("%s %s:%d", d.Kind, d.Name, d.Line))
		}
	}
	return found, missed
}

// tsrefScript prints the definitions of a file as JSON lines, read by the
// C tree-sitter runtime (WebAssembly build).
const tsrefScript = `
const Parser = require('web-tree-sitter');
const fs = require('fs');
const path = require('path');
(async () => {
  const [lang, file] = process.argv.slice(2);
  await Parser.init();
  const wasm = path.join(process.cwd(), 'node_modules/tree-sitter-wasms/out/tree-sitter-' + lang + '.wasm');
  const L = await Parser.Language.load(wasm);
  const p = new Parser(); p.setLanguage(L);
  const t = p.parse(fs.readFileSync(file, 'utf8'));
  const out = [];
  const first = (n, types) => { for (let i = 0; i < n.namedChildCount; i++) { const c = n.namedChild(i); if (types.includes(c.type)) return c; } return null; };
  // Definitions inside function bodies are locals; names lose template
  // arguments (is_byte<std::vector<T>> is is_byte).
  const local = (n) => { for (let p = n.parent; p; p = p.parent) { if (['compound_statement','function_body','lambda_literal','block'].includes(p.type)) return true; } return false; };
  const emit = (name, kind, n) => { if (!name || local(n)) return; if (!name.startsWith('operator')) name = name.split('<')[0].trim(); else if (/^operator\s*[^\w\s]/.test(name)) name = name.replace(/\s+/g, ''); out.push(JSON.stringify({name, kind, line: n.startPosition.row + 1})); };
  const declName = (d) => { while (d) { if (['identifier','field_identifier','type_identifier','destructor_name','operator_name'].includes(d.type)) return d.text; if (d.type === 'qualified_identifier' || d.type === 'template_function') { const n = d.childForFieldName('name'); if (n) { d = n; continue; } return d.text; } d = d.childForFieldName('declarator') || first(d, ['function_declarator','pointer_declarator','reference_declarator','identifier','field_identifier','qualified_identifier','parenthesized_declarator']); } return null; };
  const walk = (n) => {
    const ty = n.type;
    if (lang === 'swift') {
      if (ty === 'class_declaration') { const id = first(n, ['type_identifier','user_type']); emit(id && id.text.split('<')[0], 'type', n); }
      else if (ty === 'protocol_declaration') { const id = first(n, ['type_identifier']); emit(id && id.text, 'type', n); }
      else if (ty === 'function_declaration' || ty === 'protocol_function_declaration') { const id = first(n, ['simple_identifier','custom_operator']); emit(id && id.text, 'function', n); }
      else if (ty === 'init_declaration') emit('init', 'function', n);
      else if (ty === 'typealias_declaration' || ty === 'associatedtype_declaration') { const id = first(n, ['type_identifier']); emit(id && id.text, 'type', n); }
    } else if (lang === 'c_sharp') {
      if (/^(class|struct|interface|enum|record|record_struct)_declaration$/.test(ty) || ty === 'method_declaration' || ty === 'property_declaration' || ty === 'constructor_declaration' || ty === 'namespace_declaration' || ty === 'file_scoped_namespace_declaration') { const id = n.childForFieldName('name'); emit(id && id.text, ty.replace('_declaration',''), n); }
    } else {
      if (ty === 'function_definition') emit(declName(n.childForFieldName('declarator')), 'function', n);
      else if (/^(struct|union|enum|class)_specifier$/.test(ty) && n.childForFieldName('body') && n.childForFieldName('name')) emit(n.childForFieldName('name').text, ty.replace('_specifier',''), n);
      else if (ty === 'namespace_definition' && n.childForFieldName('name')) emit(n.childForFieldName('name').text, 'namespace', n);
      else if (ty === 'type_definition') emit(declName(n.childForFieldName('declarator')), 'typedef', n);
      else if (ty === 'alias_declaration') emit(n.childForFieldName('name').text, 'typedef', n);
    }
    for (let i = 0; i < n.namedChildCount; i++) walk(n.namedChild(i));
  };
  walk(t.rootNode);
  console.log(out.join('\n'));
})();
`

func tsrefReference(lang, p string) ([]refDef, error) {
	dir := os.Getenv("RECALL_TSREF")
	if dir == "" {
		return nil, fmt.Errorf("set RECALL_TSREF to a directory with web-tree-sitter and tree-sitter-wasms installed")
	}
	script := filepath.Join(dir, "viberag_recall_defs.js")
	if err := os.WriteFile(script, []byte(tsrefScript), 0o644); err != nil {
		return nil, err
	}
	wasm := map[string]string{"swift": "swift", "csharp": "c_sharp", "c": "c", "cpp": "cpp"}[lang]
	if wasm == "" {
		return nil, fmt.Errorf("no tsref grammar for %s", lang)
	}
	abs, _ := filepath.Abs(p)
	cmd := exec.Command("node", script, wasm, abs)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var defs []refDef
	for _, l := range strings.Split(string(out), "\n") {
		var d refDef
		if json.Unmarshal([]byte(l), &d) == nil && d.Name != "" {
			defs = append(defs, d)
		}
	}
	return defs, nil
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
