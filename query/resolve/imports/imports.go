package imports

import (
	"path"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
)

// Bindings is what a file's import statements bind, read from its
// text: each name a qualifier or a bare name can be, and the module it
// comes from.
type Bindings struct {
	// modules maps a name bound to a whole module or package (Go's
	// package name or alias, Python's "import a.b as m", TypeScript's
	// "import * as m") to the module.
	Modules map[string]string
	// names maps a name imported from a module (Python's "from m import
	// x", TypeScript's "import { x as y }") to its module and its name
	// there.
	Names map[string]Name
	// star lists the modules whose names are all imported (or
	// re-exported: "export * from").
	Star []string
	// reexports maps a name a TypeScript file re-exports ("export { x }
	// from m") to its module and name there.
	Reexports map[string]Name
	// defaults maps a name a TypeScript default import binds ("import x
	// from m") to the module: x is that module's default export. The name
	// is in modules too, for x.member.
	Defaults map[string]string
	// defaultName is the name a TypeScript file exports as its default
	// ("export default function x", "export default x", "export { x as
	// default }"), "" when it has none or it is anonymous.
	DefaultName string
}

// Name is a name imported or re-exported from a module, as the module
// names it.
type Name struct{ Module, Name string }

var (
	goImportLine = lazyregexp.New(`^\s*(?:import\s+)?([\p{L}_.][\p{L}\p{N}_]*\s+)?"([^"]+)"`)
	pyImport     = lazyregexp.New(`^\s*import\s+(.+)$`)
	pyFrom       = lazyregexp.New(`^\s*from\s+(\S+)\s+import\s+(.+)$`)
	tsFrom       = lazyregexp.New(`(?s)^\s*(import|export)\s+(type\s+)?(.*?)\s*from\s*['"]([^'"]+)['"]`)
	tsRequire    = lazyregexp.New(`^\s*(?:const|let|var)\s+(\S.*?)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)`)
	// tsDefaultDecl is a declaration exported as the default; tsDefaultName
	// a name exported as the default on a line of its own ("export default
	// x;", not "export default wrap(x)"); tsDefaultAs "{ x as default }".
	tsDefaultDecl = lazyregexp.New(`^\s*export\s+default\s+(?:async\s+)?(?:function\*?|(?:abstract\s+)?class)\s+([\p{L}_$][\p{L}\p{N}_$]*)`)
	tsDefaultName = lazyregexp.New(`^\s*export\s+default\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*;?\s*$`)
	tsDefaultAs   = lazyregexp.New(`^\s*export\s*\{[^}]*?([\p{L}_$][\p{L}\p{N}_$]*)\s+as\s+default\b`)
)

// Read reads the imports of a file of language lang from its lines.
func Read(lang string, lines []string) *Bindings {
	fi := &Bindings{Modules: map[string]string{}, Names: map[string]Name{}, Reexports: map[string]Name{}, Defaults: map[string]string{}}
	switch lang {
	case "go":
		readGoImports(fi, lines)
	case "python":
		readPyImports(fi, lines)
	case "typescript", "javascript", "tsx":
		readTSImports(fi, lines)
	}
	return fi
}

func readGoImports(fi *Bindings, lines []string) {
	inBlock := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "import ("):
			inBlock = true
			continue
		case inBlock && strings.HasPrefix(t, ")"):
			inBlock = false
			continue
		case !inBlock && !strings.HasPrefix(t, "import "):
			if strings.HasPrefix(t, "func ") || strings.HasPrefix(t, "type ") {
				return // imports come first
			}
			continue
		}
		m := goImportLine.FindStringSubmatch(strings.TrimPrefix(t, "import "))
		if m == nil {
			continue
		}
		alias, p := strings.TrimSpace(m[1]), m[2]
		switch alias {
		case "_":
			continue
		case ".":
			fi.Star = append(fi.Star, p)
			continue
		case "":
			alias = GoPackageName(p)
		}
		fi.Modules[alias] = p
	}
}

// GoPackageName guesses the package name of an import path: its last
// element, without a major version or a "go-" prefix.
func GoPackageName(p string) string {
	b := path.Base(p)
	if len(b) >= 2 && b[0] == 'v' && strings.Trim(b[1:], "0123456789") == "" && strings.Contains(p, "/") {
		b = path.Base(path.Dir(p))
	}
	b = strings.TrimPrefix(b, "go-")
	b = strings.TrimSuffix(b, ".go")
	if i := strings.IndexAny(b, ".-"); i > 0 {
		b = b[:i]
	}
	return b
}

// JoinStatements returns lines with each statement continued in parentheses or
// braces joined onto its first line.
func JoinStatements(lines []string, starts func(string) bool) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !starts(strings.TrimSpace(l)) {
			continue
		}
		d := strings.Count(l, "(") + strings.Count(l, "{") - strings.Count(l, ")") - strings.Count(l, "}")
		for d > 0 && i+1 < len(lines) && len(l) < 4096 {
			i++
			l += " " + strings.TrimSpace(lines[i])
			d += strings.Count(lines[i], "(") + strings.Count(lines[i], "{") - strings.Count(lines[i], ")") - strings.Count(lines[i], "}")
		}
		out = append(out, l)
	}
	return out
}

func readPyImports(fi *Bindings, lines []string) {
	for _, l := range JoinStatements(lines, func(t string) bool { return strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ") }) {
		l = strings.Split(l, "#")[0]
		if m := pyFrom.FindStringSubmatch(l); m != nil {
			mod := m[1]
			list := strings.Trim(strings.TrimSpace(m[2]), "()")
			for _, it := range strings.Split(list, ",") {
				f := strings.Fields(it)
				switch {
				case len(f) == 1 && f[0] == "*":
					fi.Star = append(fi.Star, mod)
				case len(f) == 1:
					fi.Names[f[0]] = Name{mod, f[0]}
				case len(f) == 3 && f[1] == "as":
					fi.Names[f[2]] = Name{mod, f[0]}
				}
			}
			continue
		}
		if m := pyImport.FindStringSubmatch(l); m != nil {
			for _, it := range strings.Split(m[1], ",") {
				f := strings.Fields(it)
				switch {
				case len(f) == 1:
					// "import a.b" binds a; a.b.x is written in full.
					fi.Modules[strings.Split(f[0], ".")[0]] = strings.Split(f[0], ".")[0]
				case len(f) == 3 && f[1] == "as":
					fi.Modules[f[2]] = f[0]
				}
			}
		}
	}
}

func readTSImports(fi *Bindings, lines []string) {
	code := tsBlankBlockComments(lines)
	for i, l := range code {
		code[i] = strings.TrimRight(lex.StripComment(l), " \t")
	}
	stmts := JoinStatements(code, func(t string) bool {
		return strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "export ") || strings.HasPrefix(t, "const ") || strings.HasPrefix(t, "let ") || strings.HasPrefix(t, "var ")
	})
	for _, l := range stmts {
		if fi.DefaultName == "" && strings.HasPrefix(strings.TrimSpace(l), "export") {
			fi.DefaultName = tsDefaultExport(l)
		}
		if m := tsRequire.FindStringSubmatch(l); m != nil {
			tsBindings(fi, m[1], m[2], false)
			continue
		}
		m := tsFrom.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		tsBindings(fi, tsBlockComment.ReplaceAllString(m[3], " "), m[4], m[1] == "export")
	}
}

// tsBlankBlockComments returns lines with their block comments ("/* … */",
// a doc comment over several lines) blanked to spaces, columns kept: a
// doc comment on an item of an import or export list may write braces
// or "import { x } from 'm'" itself, which are no part of the statement.
// Quoted text is read within its line, as skipQuoted reads it.
func tsBlankBlockComments(lines []string) []string {
	out := make([]string, len(lines))
	in := false
	for k, l := range lines {
		if !in && !strings.Contains(l, "/*") {
			out[k] = l
			continue
		}
		b := []byte(l)
		var quote byte
		for i := 0; i < len(b); i++ {
			switch {
			case in:
				if b[i] == '*' && i+1 < len(b) && b[i+1] == '/' {
					b[i], b[i+1] = ' ', ' '
					in = false
					i++
					continue
				}
				b[i] = ' '
			case lex.SkipQuoted(l, &i, &quote):
			case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
				i = len(b) // a line comment: stripComment drops it
			// "/*" opens a comment; "\/*" is a regular expression's slash.
			case b[i] == '/' && i+1 < len(b) && b[i+1] == '*' && (i == 0 || b[i-1] != '\\'):
				b[i], b[i+1] = ' ', ' '
				in = true
				i++
			}
		}
		out[k] = string(b)
	}
	return out
}

// tsDefaultExport returns the name statement l exports as its file's
// default, "" if it exports none by name.
func tsDefaultExport(l string) string {
	for _, re := range []*lazyregexp.Regexp{tsDefaultDecl, tsDefaultName, tsDefaultAs} {
		if re == tsDefaultAs && tsFrom.MatchString(l) {
			continue // "export { x as default } from m": a re-export, in reexports
		}
		if m := re.FindStringSubmatch(l); m != nil {
			switch m[1] {
			case "function", "class", "abstract", "async", "extends":
				return ""
			}
			return m[1]
		}
	}
	return ""
}

// tsBlockComment is a /* */ comment (a doc comment on an item of an
// import or export list).
var tsBlockComment = lazyregexp.New(`(?s)/\*.*?\*/`)

// tsBindings records the bindings of an import or export clause ("X",
// "* as X", "{ a, b as c }", "X, { a }") from module mod.
func tsBindings(fi *Bindings, clause, mod string, export bool) {
	clause = strings.TrimSpace(clause)
	var named string
	if o := strings.Index(clause, "{"); o >= 0 {
		if c := strings.LastIndex(clause, "}"); c > o {
			named = clause[o+1 : c]
			clause = strings.TrimSpace(clause[:o] + clause[c+1:])
		}
	}
	for _, it := range strings.Split(named, ",") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(it), "type "))
		var local, orig string
		switch {
		case len(f) == 1:
			local, orig = f[0], f[0]
		case len(f) == 3 && f[1] == "as":
			local, orig = f[2], f[0]
		case len(f) == 3 && f[1] == ":": // require's { a: b }
			local, orig = f[2], f[0]
		default:
			continue
		}
		if export {
			fi.Reexports[local] = Name{mod, orig}
		} else {
			fi.Names[local] = Name{mod, orig}
		}
	}
	for _, it := range strings.Split(clause, ",") {
		it = strings.TrimSpace(it)
		switch {
		case it == "*":
			if export {
				fi.Star = append(fi.Star, mod)
			}
		case strings.HasPrefix(it, "* as "):
			fi.Modules[strings.TrimSpace(it[5:])] = mod
		case it != "" && !export:
			fi.Modules[it] = mod // its members are written X.name
			fi.Defaults[it] = mod
		}
	}
}

// Files returns the indexed files a module of a file resolves to,
// by language: a Go import path is the directory whose path it ends with;
// a Python module (dotted, relative with leading dots) the file a/b.py or
// a/b/__init__.py ending that path; a TypeScript relative specifier the
// file it names with one of the usual extensions or an index file.
// Modules outside the repository resolve to nothing.
func Files(lang, from, mod string, byPath map[string]bool, dirs map[string]bool) []string {
	switch lang {
	case "go":
		return nil // directories: see goImportDir
	case "python":
		rel := strings.TrimLeft(mod, ".")
		dots := len(mod) - len(rel)
		p := strings.ReplaceAll(rel, ".", "/")
		if dots > 0 {
			base := path.Dir(from)
			for i := 1; i < dots; i++ {
				base = path.Dir(base)
			}
			p = path.Join(base, p)
			var out []string
			for _, c := range []string{p + ".py", p + "/__init__.py", p + ".pyi"} {
				if byPath[strings.TrimPrefix(c, "./")] {
					out = append(out, strings.TrimPrefix(c, "./"))
				}
			}
			return out
		}
		var out []string
		for f := range byPath {
			if strings.HasSuffix("/"+f, "/"+p+".py") || strings.HasSuffix("/"+f, "/"+p+"/__init__.py") || strings.HasSuffix("/"+f, "/"+p+".pyi") {
				out = append(out, f)
			}
		}
		return out
	default:
		if !strings.HasPrefix(mod, ".") {
			return nil
		}
		p := path.Join(path.Dir(from), mod)
		p = strings.TrimSuffix(p, ".js")
		for _, c := range []string{p, p + ".ts", p + ".tsx", p + ".d.ts", p + ".js", p + ".jsx", p + ".mjs", p + "/index.ts", p + "/index.tsx", p + "/index.js"} {
			if c = strings.TrimPrefix(c, "./"); byPath[c] {
				return []string{c}
			}
		}
		return nil
	}
}

// GoImportDir reports whether the Go import path p names directory dir of
// the repository (whose module path is unknown: p ends with dir), or,
// for the root directory, whether no indexed directory matches p better
// and the package name agrees.
func GoImportDir(p, dir, pkg string, dirs map[string]bool) bool {
	if dir != "" && dir != "." {
		return p == dir || strings.HasSuffix(p, "/"+dir)
	}
	for d := range dirs {
		if d != "" && d != "." && (p == d || strings.HasSuffix(p, "/"+d)) {
			return false
		}
	}
	return GoPackageName(p) == pkg
}

// Importing returns the import or re-export of a name under another
// local name ("name as other"), if the file has one.
func (fi *Bindings) Importing(name string) (Name, bool) {
	for _, m := range []map[string]Name{fi.Names, fi.Reexports} {
		for _, in := range m {
			if in.Name == name {
				return in, true
			}
		}
	}
	return Name{}, false
}

// Aliased reports whether the text after a name ending at offset end
// renames it ("name as other"), as import and export lists do.
func Aliased(line string, end int) bool {
	rest := line[min(end, len(line)):]
	t := strings.TrimLeft(rest, " \t")
	return len(t) < len(rest) && strings.HasPrefix(t, "as") && len(t) > 2 && (t[2] == ' ' || t[2] == '\t')
}

// PyFromAt returns the module a one-line Python "from m import …" imports
// the name at offset at from; ok is false when the name is not in its
// list of names.
func PyFromAt(line string, at int, name string) (Name, bool) {
	if !strings.HasPrefix(strings.TrimLeft(line, " \t"), "from") {
		return Name{}, false // most lines: no regexp run
	}
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	m := pyFrom.FindStringSubmatchIndex(line)
	if m == nil || at < m[4] {
		return Name{}, false
	}
	return Name{line[m[2]:m[3]], name}, true
}
