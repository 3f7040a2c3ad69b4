package extract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecall measures definition recall, parse states and speed of the C,
// C++, C#, Haskell and Swift readers against an independent reference, on
// every file under $RECALL:
//
//	RECALL=/work/bench-repos/fmtlib/include/fmt go test ./extract -run TestRecall -v
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
// RECALL_MISSED=n prints n missed definitions per language.
func TestRecall(t *testing.T) {
	dir := os.Getenv("RECALL")
	if dir == "" {
		t.Skip("set RECALL=dir")
	}
	type row struct {
		files            int
		bytes            int64
		status           map[string]int
		dur, cpu         time.Duration
		slowest          time.Duration
		slowFile         string
		found, refs, sym int
	}
	rows := map[string]*row{}
	missed := map[string][]string{}
	maxMissed := 0
	fmt.Sscanf(os.Getenv("RECALL_MISSED"), "%d", &maxMissed)

	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		lang := LanguageOf(p).Name
		if repairReaders[lang] == nil {
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
			t.Logf("%s: no reference: %v", p, err)
		}
		// Rows are keyed by the reference language: a C++ header (.h) is
		// counted as C++.
		rw := rows[refLang]
		if rw == nil {
			rw = &row{status: map[string]int{}}
			rows[refLang] = rw
		}
		cpu0 := cpuTime()
		start := time.Now()
		out, err := runReader(context.Background(), repairReaderFor(lang), p, src, DefaultParseTimeout, nil)
		el := time.Since(start)
		rw.cpu += cpuTime() - cpu0
		if err != nil {
			out = &Outline{Status: ParseFallback, Problem: err.Error()}
		}
		f := &File{Path: p, Language: lang, Size: int64(len(src)), Lines: countLines(src)}
		build(f, out, src)
		rw.files++
		rw.bytes += int64(len(src))
		rw.status[f.ParseStatus]++
		rw.dur += el
		rw.sym += len(f.Symbols)
		if el > rw.slowest {
			rw.slowest, rw.slowFile = el, p
		}
		found, miss := recallMatch(ref, f.Symbols, lang)
		rw.found += found
		rw.refs += len(ref)
		for _, m := range miss {
			missed[refLang] = append(missed[refLang], p+": "+m)
		}
		if os.Getenv("RECALL_FILES") != "" {
			fmt.Printf("  %-60s %-9s %4d/%-4d %6.0fms %s\n", p, f.ParseStatus, found, len(ref), float64(el.Microseconds())/1000, f.ParseProblem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	langs := make([]string, 0, len(rows))
	for l := range rows {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("| lang | files | clean/repaired/fallback | symbols | ref defs | found | recall %% | MB/s wall | MB/s cpu | slowest ms | slowest file |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, l := range langs {
		rw := rows[l]
		recall := 100.0
		if rw.refs > 0 {
			recall = 100 * float64(rw.found) / float64(rw.refs)
		}
		fmt.Printf("| %s | %d | %d/%d/%d | %d | %d | %d | %.1f | %.2f | %.2f | %.0f | %s |\n", l, rw.files,
			rw.status[ParseClean], rw.status[ParseRepaired], rw.status[ParseFallback], rw.sym, rw.refs, rw.found, recall,
			float64(rw.bytes)/1e6/rw.dur.Seconds(), float64(rw.bytes)/1e6/rw.cpu.Seconds(), float64(rw.slowest.Microseconds())/1000, filepath.Base(rw.slowFile))
	}
	for _, l := range langs {
		for i, m := range missed[l] {
			if i >= maxMissed {
				break
			}
			fmt.Printf("missed %s %s\n", l, m)
		}
	}
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
			if rest := d.Name[len("operator "):]; rest != "" && !isWordByte(rest[0]) {
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

// TestSkeleton prints the skeleton items of $SKELETON (a debugging aid).
func TestSkeleton(t *testing.T) {
	p := os.Getenv("SKELETON")
	if p == "" {
		t.Skip("set SKELETON=file")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lang := LanguageOf(p).Name
	if lang == "c" && cLooksCpp(p, src) {
		lang = "cpp"
	}
	r := repairReaders[lang]
	parseSrc := src
	if r.prepare != nil {
		parseSrc, _ = r.prepare(src)
	}
	items, _ := r.skeleton(parseSrc, nil)
	lines := newPointIndex(src)
	var show func(items []item, depth int)
	show = func(items []item, depth int) {
		for _, it := range items {
			code := strings.TrimSpace(firstLine(src[min(it.code, len(src)):min(it.end, len(src))]))
			if len(code) > 70 {
				code = code[:70]
			}
			fmt.Printf("%s%d-%d code@%d block=%v sticky=%v %q\n", strings.Repeat("  ", depth), lines.line(it.start), lines.line(max(it.start, it.end-1)), lines.line(min(it.code, len(src)-1)), it.hasBlock(), it.sticky, code)
			if depth < 2 {
				show(it.children, depth+1)
			}
		}
	}
	show(items, 0)
}

// TestRepairDump prints what the repair reader reads from $REPAIRDUMP.
func TestRepairDump(t *testing.T) {
	p := os.Getenv("REPAIRDUMP")
	if p == "" {
		t.Skip("set REPAIRDUMP=file")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	timeout := DefaultParseTimeout
	if d, err := time.ParseDuration(os.Getenv("REPAIRDUMP_TIMEOUT")); err == nil {
		timeout = d
	}
	out, err := runReader(context.Background(), repairReaderFor(LanguageOf(p).Name), p, src, timeout, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &File{Path: p, Language: LanguageOf(p).Name, Size: int64(len(src)), Lines: countLines(src)}
	build(f, out, src)
	fmt.Printf("%s status=%s problem=%q doc=%q imports=%v\n", p, f.ParseStatus, f.ParseProblem, f.Doc, f.Imports)
	for _, s := range f.Symbols {
		fmt.Printf("SYM %-9s %-28s %-45s p=%d %d-%d exp=%v dec=%v sig=%q doc=%.50q\n", s.Kind, s.Name, s.Qualname, s.Parent, s.StartLine, s.EndLine, s.Exported, s.Decorators, s.Signature, s.Doc)
	}
	if os.Getenv("REPAIRDUMP_REFS") != "" {
		for _, r := range f.Refs {
			fmt.Printf("REF %s %s %s %d\n", r.Kind, r.Name, r.Target, r.StartLine)
		}
	}
	for _, c := range f.Chunks {
		fmt.Printf("CHUNK %d-%d %s\n", c.StartLine, c.EndLine, c.Header)
	}
}

// cpuTime is the process's user+system CPU time: throughput measured by it
// does not depend on other load on the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestThroughput measures Extract's throughput per language on every file
// under $THROUGHPUT (several directories separated by the path list
// separator), the way the indexer calls it:
//
//	THROUGHPUT=/work/bench-repos/gson:xmonad=/work/bench-repos/xmonad/src THROUGHPUT_RUNS=5 go test ./extract -run TestThroughput -v
//
// A row is a language in one directory, labelled by the directory's base
// name or by the label given as label=dir; `.h` files written in C++ count
// as cpp.
// Each language's grammar is loaded once before timing (a one-time cost
// per process). Every file is extracted once per run, runs interleaved so
// that a burst of load on a shared machine hits all languages alike; the
// table gives, per language, the median over runs of MB/s by wall-clock
// time, MB/s by process CPU time (user+system, GC included) and the
// slowest file's time. It prints figures and asserts nothing about speed.
func TestThroughput(t *testing.T) {
	dirs := filepath.SplitList(os.Getenv("THROUGHPUT"))
	if len(dirs) == 0 {
		t.Skip("set THROUGHPUT=dir[:dir...]")
	}
	runs := 3
	fmt.Sscanf(os.Getenv("THROUGHPUT_RUNS"), "%d", &runs)
	type file struct {
		path, lang, row string
		src             []byte
	}
	var files []file
	for _, dir := range dirs {
		label := filepath.Base(dir)
		if l, d, ok := strings.Cut(dir, "="); ok {
			label, dir = l, d
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			lang := LanguageOf(p)
			if lang.reader == nil || lang.Name == "markdown" {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("read %s: %w", p, err)
			}
			if len(src) > 1<<20 {
				return nil // the indexer's default size limit
			}
			row := lang.Name
			if row == "c" && cLooksCpp(p, src) {
				row = "cpp"
			}
			files = append(files, file{p, lang.Name, row + " (" + label + ")", src})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	warm := map[string]bool{}
	for _, f := range files {
		if !warm[f.lang] {
			warm[f.lang] = true
			if _, err := Extract(context.Background(), f.path, f.src, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	type sample struct {
		bytes     int64
		files     int
		wall, cpu time.Duration
		slowest   time.Duration
		slowFile  string
		fallback  int
	}
	perRun := map[string][]sample{}
	for r := 0; r < runs; r++ {
		cur := map[string]*sample{}
		for _, f := range files {
			cpu0 := cpuTime()
			start := time.Now()
			out, err := Extract(context.Background(), f.path, f.src, Options{})
			el := time.Since(start)
			cpu := cpuTime() - cpu0
			if err != nil {
				t.Fatal(err)
			}
			s := cur[f.row]
			if s == nil {
				s = &sample{}
				cur[f.row] = s
			}
			s.bytes += int64(len(f.src))
			s.files++
			s.wall += el
			s.cpu += cpu
			if out.ParseStatus == ParseFallback {
				s.fallback++
			}
			if el > s.slowest {
				s.slowest, s.slowFile = el, f.path
			}
		}
		for l, s := range cur {
			perRun[l] = append(perRun[l], *s)
		}
	}
	median := func(xs []float64) float64 {
		sort.Float64s(xs)
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	langs := make([]string, 0, len(perRun))
	for l := range perRun {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("| lang | files | MB | fallback | MB/s wall | MB/s cpu | slowest ms | slowest file | runs |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, l := range langs {
		ss := perRun[l]
		var wall, cpu, slow []float64
		slowFile := map[string]int{}
		for _, s := range ss {
			mb := float64(s.bytes) / 1e6
			wall = append(wall, mb/s.wall.Seconds())
			cpu = append(cpu, mb/max(s.cpu.Seconds(), 1e-9))
			slow = append(slow, float64(s.slowest.Microseconds())/1000)
			slowFile[filepath.Base(s.slowFile)]++
		}
		most := ""
		for f, n := range slowFile {
			if most == "" || n > slowFile[most] || n == slowFile[most] && f < most {
				most = f
			}
		}
		fmt.Printf("| %s | %d | %.2f | %d | %.2f | %.2f | %.0f | %s | %d |\n", l, ss[0].files, float64(ss[0].bytes)/1e6, ss[0].fallback,
			median(wall), median(cpu), median(slow), most, len(ss))
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
