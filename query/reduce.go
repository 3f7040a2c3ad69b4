package query

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// Long task text. Agents paste whole bug reports, stack traces and
// feature requests as queries. Searched as they stand, their hundreds of
// words drown the few that name the code (every report says "when",
// "expected", "version"), and bm25 over them is slow. IsTaskText tells
// such text from a question or a code snippet; ReduceTaskText keeps what
// retrieves — stack frames of the repository's own code, error types and
// messages, code spans, quoted strings, identifiers, paths, and the
// report's most repeated content words — deterministically, so the same
// text always searches the same way, and the response shows the result
// (Response.QueryUsed).

// Limits of task text.
const (
	// MaxLiteralBytes bounds a query searched as it stands: exact text,
	// code, a name. Longer text is reduced (auto and concept) or refused.
	MaxLiteralBytes = 4096
	// taskTextWords: a query of at least this many words that reads as
	// prose is task text.
	taskTextWords = 40
	// maxReducedTerms and maxReducedBytes bound the reduced query.
	maxReducedTerms = 40
	maxReducedBytes = 600
	// maxProseWords bounds the plain content words kept from prose.
	maxProseWords = 12
	// maxMessageWords bounds the words kept from one error message.
	maxMessageWords = 14
)

var (
	// Stack frames, one pattern per runtime; the groups name the function
	// and the file.
	pyFrameRe   = lazyregexp.New(`^\s*File "([^"]+)", line \d+(?:, in (\S+))?`)
	javaFrameRe = lazyregexp.New(`^\s*at\s+([\w$.<>/]+)\(([^)]*)\)\s*$`)
	jsFrameRe   = lazyregexp.New(`^\s*at\s+(?:(?:async\s+)?(?:new\s+)?([^\s(]+)(?:\s+\[as [^\]]+\])?\s+\()?(\S+?):\d+(?::\d+)?\)?\s*$`)
	goFuncRe    = lazyregexp.New(`^([\w./*()\-]+\.[\w$]+)\(.*\)$`)
	goFileRe    = lazyregexp.New(`^\s+(\S+\.go):\d+(?:\s+\+0x[0-9a-f]+)?$`)
	rustFrameRe = lazyregexp.New(`^\s*\d+:\s+(?:0x[0-9a-f]+ - )?([\w:<>$]+?)(?:::h[0-9a-f]{16})?\s*$`)
	rustAtRe    = lazyregexp.New(`^\s*at\s+(\S+\.rs):\d+(?::\d+)?\s*$`)
	rustPanicRe = lazyregexp.New(`^thread '[^']*' panicked at (?:'(.*)', )?(\S+\.rs):\d+(?::\d+)?:?\s*$`)
	goPanicRe   = lazyregexp.New(`^(?:panic|fatal error): (.+)$`)
	noiseLineRe = lazyregexp.New(`^(?:goroutine \d+ \[.*\]:|Traceback \(most recent call last\):|stack backtrace:|note: run with .RUST_BACKTRACE.*|\s*\.\.\. \d+ more|exit status \d+|\[signal .*\]|During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:)\s*$`)
	caretLineRe = lazyregexp.New(`^\s*[~^]+\s*$`)
	// An error line: a type ending in Error, Exception … then ": message".
	errorLineRe  = lazyregexp.New(`^\s*(?:Caused by:\s*|Uncaught\s+|Error:\s+|Exception in thread "[^"]*"\s+)?((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:Error|Exception|Panic|Fault|Failure|Warning|Exit|Interrupt|NotFound|Invalid))(?::\s*(.*))?$`)
	pyLastLineRe = lazyregexp.New(`^((?:[a-z_]\w*\.)*[A-Z]\w*):\s+(.*)$`)
	codeSpanRe   = lazyregexp.New("`([^`\n]{1,200})`")
	quotedRe     = lazyregexp.New(`"([^"\n]{3,120})"|'([^'\n]{3,120})'`)
	pathLikeRe   = lazyregexp.New(`^(?:[\w.\-]+/)+[\w.\-]+$|^[\w\-]+\.(?:go|py|pyi|js|jsx|mjs|cjs|ts|tsx|rs|java|kt|kts|scala|rb|php|c|h|cc|cpp|hpp|cs|swift|lua|sh|ex|exs|hs|zig|md|json|yaml|yml|toml|sql|html|css|vue|svelte)$`)
	callSuffixRe = lazyregexp.New(`\(\)?$`)
	quoteMarkRe  = lazyregexp.New(`(^|[^\pL\pN])['’]|['’]([^\pL\pN]|$)`)
	urlRe        = lazyregexp.New(`\b[a-z][a-z0-9+.-]*://\S+`)
)

// IsTaskText reports whether q is task text to reduce rather than a query
// to search as it stands: longer than MaxLiteralBytes, or holding a stack
// frame, or of taskTextWords words or more that read as prose.
func IsTaskText(q string) bool {
	if len(q) > MaxLiteralBytes {
		return true
	}
	for _, l := range strings.Split(q, "\n") {
		if isFrameLine(l) {
			return true
		}
	}
	words := strings.Fields(q)
	if len(words) < taskTextWords {
		return false
	}
	stops := 0
	for _, w := range words {
		if isStopWord(strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))) {
			stops++
		}
	}
	// English prose runs at about 40 % stop words; code at almost none.
	return stops*100 >= len(words)*15
}

func isFrameLine(l string) bool {
	return pyFrameRe.MatchString(l) || javaFrameRe.MatchString(l) || jsFrameRe.MatchString(l) ||
		goFileRe.MatchString(l) || rustAtRe.MatchString(l) || rustPanicRe.MatchString(l)
}

// reducer collects the terms of a reduction in order of precedence.
type reducer struct {
	terms []string
	seen  map[string]bool
	bytes int
}

// add keeps term unless it was kept already (in any case), is too short,
// or the reduction is full.
func (r *reducer) add(term string) {
	term = strings.TrimSpace(term)
	key := strings.ToLower(term)
	if utf8.RuneCountInString(term) < 2 || r.seen[key] || len(r.terms) >= maxReducedTerms || r.bytes+len(term)+1 > maxReducedBytes {
		return
	}
	r.seen[key] = true
	r.terms = append(r.terms, term)
	r.bytes += len(term) + 1
}

// addWords keeps the words of s that are not stop words (at most max),
// and, with prose set, not the words every report uses. Quote marks
// around a word are dropped first (tokens cuts a word at an apostrophe).
func (r *reducer) addWords(s string, max int, prose bool) {
	n := 0
	for _, tok := range tokens(quoteMarkRe.ReplaceAllString(s, "$1 $2")) {
		if n == max {
			return
		}
		lower := strings.ToLower(tok)
		if isStopWord(lower) || isDigits(tok) || prose && isTaskWord(lower) {
			continue
		}
		r.add(tok)
		n++
	}
}

// addSpan keeps a code span or a token: a path as a path, else its
// identifiers.
func (r *reducer) addSpan(s string, onlyIdents bool) {
	const marks = "`'\"()[]{}<>,;!?*"
	f := strings.TrimRight(strings.TrimLeft(s, marks), marks+".:")
	f = callSuffixRe.ReplaceAllString(f, "")
	if pathLikeRe.MatchString(f) && strings.ContainsAny(f, "/.") && !strings.Contains(f, "://") {
		r.add(shortPath(f))
		return
	}
	for _, tok := range tokens(f) {
		lower := strings.ToLower(tok)
		if isStopWord(lower) {
			continue
		}
		// Position 0: a capitalised word is a word here, not a name.
		if !onlyIdents || isIdentLike(tok, 0) && !isTaskWord(lower) {
			r.add(tok)
		}
	}
}

// ReduceTaskText reduces task text to the terms that retrieve, most
// telling first, as one line of space-separated terms:
//
//  1. stack frames of the repository's own code: the function
//     (Class.method, last qualifier kept) and the file's last two path
//     elements, innermost first (Python prints its innermost frame last,
//     so Python's frames are taken from the end); frames of the runtime
//     and standard library (GOROOT, /usr/lib/python3.x, java.*, std:: …)
//     are dropped;
//  2. error lines: the exception type, unless it is a built-in one
//     (ValueError, NullPointerException …: every codebase raises those),
//     and the message's words; Go and Rust panic messages; then the
//     frames of installed packages (site-packages, node_modules, the Go
//     module cache …), which may be this repository installed;
//  3. code spans (`…`) and quoted strings, as identifiers and words;
//  4. in the prose, tokens written like identifiers (getUser,
//     max_retries, a.b, A::B, send()) and like paths (src/app.py,
//     config.yaml);
//  5. the prose's content words — not stop words, not the words every
//     report uses (expected, reproduce, version …), at least four
//     letters — the most repeated first, then in order of appearance,
//     at most maxProseWords.
//
// Duplicates (ignoring case) are dropped; the result holds at most
// maxReducedTerms terms and maxReducedBytes bytes.
func ReduceTaskText(q string) string {
	r := &reducer{seen: map[string]bool{}}
	lines := strings.Split(strings.ReplaceAll(q, "\r\n", "\n"), "\n")
	var prose []string
	var frames, pyFrames [][2]string // function, file
	var errs, types []string
	afterPy := -1 // the line after the last Python frame: the exception
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		switch {
		case strings.TrimSpace(l) == "" || noiseLineRe.MatchString(l):
		case pyFrameRe.MatchString(l):
			m := pyFrameRe.FindStringSubmatch(l)
			pyFrames = append(pyFrames, [2]string{m[2], m[1]})
			if i+1 < len(lines) && !isFrameLine(lines[i+1]) && strings.HasPrefix(lines[i+1], "    ") {
				i++ // the source line Python prints under a frame: code, already named by the frame
				if i+1 < len(lines) && caretLineRe.MatchString(lines[i+1]) {
					i++ // and Python 3.11's ~~~^^^ under it
				}
			}
			afterPy = i + 1
		case javaFrameRe.MatchString(l): // name( with no space: the JVM's form, never V8's
			m := javaFrameRe.FindStringSubmatch(l)
			file := m[2]
			if j := strings.IndexByte(file, ':'); j >= 0 {
				file = file[:j]
			}
			frames = append(frames, [2]string{m[1], file})
		case jsFrameRe.MatchString(l):
			m := jsFrameRe.FindStringSubmatch(l)
			frames = append(frames, [2]string{m[1], m[2]})
		case goFuncRe.MatchString(l) && i+1 < len(lines) && goFileRe.MatchString(lines[i+1]):
			fn := goFuncRe.FindStringSubmatch(l)[1]
			file := goFileRe.FindStringSubmatch(lines[i+1])[1]
			frames = append(frames, [2]string{fn, file})
			i++
		case strings.HasPrefix(l, "created by ") && i+1 < len(lines) && goFileRe.MatchString(lines[i+1]):
			fn := strings.Fields(l)[2]
			frames = append(frames, [2]string{fn, goFileRe.FindStringSubmatch(lines[i+1])[1]})
			i++
		case goFileRe.MatchString(l):
			frames = append(frames, [2]string{"", goFileRe.FindStringSubmatch(l)[1]})
		case rustPanicRe.MatchString(l):
			m := rustPanicRe.FindStringSubmatch(l)
			frames = append(frames, [2]string{"", m[2]})
			if m[1] != "" {
				errs = append(errs, m[1])
			} else if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && !isFrameLine(lines[i+1]) {
				errs = append(errs, lines[i+1]) // Rust ≥ 1.73 prints the message on the next line
				i++
			}
		case rustFrameRe.MatchString(l):
			fn := rustFrameRe.FindStringSubmatch(l)[1]
			file := ""
			if i+1 < len(lines) && rustAtRe.MatchString(lines[i+1]) {
				file = rustAtRe.FindStringSubmatch(lines[i+1])[1]
				i++
			}
			frames = append(frames, [2]string{fn, file})
		case rustAtRe.MatchString(l):
			frames = append(frames, [2]string{"", rustAtRe.FindStringSubmatch(l)[1]})
		case goPanicRe.MatchString(l):
			errs = append(errs, strings.TrimPrefix(goPanicRe.FindStringSubmatch(l)[1], "runtime error: "))
		case errorLineRe.MatchString(l) || i == afterPy && pyLastLineRe.MatchString(l):
			// "a.BError: b.CException: message": every type, then the
			// message. After Python frames any "module.Type: message"
			// is the exception, whatever the type's name.
			msg := l
			if m := pyLastLineRe.FindStringSubmatch(l); m != nil && i == afterPy && !errorLineRe.MatchString(l) {
				types, msg = append(types, lastDotted(m[1])), m[2]
			}
			for {
				m := errorLineRe.FindStringSubmatch(msg)
				if m == nil {
					break
				}
				if !builtinErrors[lastDotted(m[1])] {
					types = append(types, lastDotted(m[1]))
				}
				msg = m[2]
			}
			errs = append(errs, msg)
		default:
			prose = append(prose, l)
		}
	}
	// Python prints the innermost frame last.
	for i := len(pyFrames) - 1; i >= 0; i-- {
		frames = append(frames, pyFrames[i])
	}
	addFrames := func(class int) {
		for _, f := range frames {
			if frameClass(f[0], f[1]) != class {
				continue
			}
			if fn := frameFunc(f[0]); fn != "" {
				r.add(fn)
			}
			if f[1] != "" {
				r.add(shortPath(f[1]))
			}
		}
	}
	addFrames(frameOwn)
	for _, t := range types {
		r.add(t)
	}
	for _, e := range errs {
		r.addWords(e, maxMessageWords, false)
	}
	// Frames in installed packages come after the message: they may be
	// this very repository installed (a traceback of flask searched in
	// flask), or a library it calls.
	addFrames(frameInstalled)
	text := urlRe.ReplaceAllString(strings.Join(prose, "\n"), " ")
	for _, m := range codeSpanRe.FindAllStringSubmatch(text, -1) {
		for _, f := range strings.Fields(m[1]) {
			r.addSpan(f, false)
		}
	}
	for _, m := range quotedRe.FindAllStringSubmatch(text, -1) {
		r.addWords(m[1]+m[2], maxMessageWords, false)
	}
	// Identifiers and paths written in the prose.
	for _, f := range strings.Fields(text) {
		r.addSpan(f, true)
	}
	// The prose's content words, the most repeated first.
	type word struct {
		w          string
		n, firstAt int
	}
	counts := map[string]*word{}
	var order []*word
	for i, tok := range tokens(text) {
		lower := strings.ToLower(tok)
		if utf8.RuneCountInString(lower) < 4 || isStopWord(lower) || isTaskWord(lower) || isDigits(lower) || strings.ContainsAny(lower, ".:\\#") {
			continue
		}
		if w := counts[lower]; w != nil {
			w.n++
			continue
		}
		w := &word{w: lower, n: 1, firstAt: i}
		counts[lower] = w
		order = append(order, w)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].n > order[j].n })
	kept := 0
	for _, w := range order {
		if kept == maxProseWords {
			break
		}
		if !r.seen[w.w] {
			r.add(w.w)
			kept++
		}
	}
	return strings.Join(r.terms, " ")
}

// lastDotted is the last element of a dotted name.
func lastDotted(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// frameFunc shortens a frame's function to what the index names: the
// last two elements of a qualified name (Class.method, mod::func),
// without Go's receiver decoration, Rust's hash, closures and
// anonymous functions.
func frameFunc(fn string) string {
	fn = strings.NewReplacer("(*", "", ")", "", "(", "").Replace(fn)
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:] // github.com/a/b/pkg.(*T).M → pkg.T.M
	}
	fn = strings.NewReplacer("::", ".", "$", ".").Replace(fn)
	var parts []string
	for _, p := range strings.Split(fn, ".") {
		switch {
		case p == "", strings.HasPrefix(p, "<"), strings.HasPrefix(p, "{{"), strings.HasPrefix(p, "func") && isDigits(strings.TrimPrefix(p, "func")),
			isDigits(p), p == "Object", p == "anonymous", p == "lambda", p == "closure":
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, ".")
}

// shortPath keeps a path's last two elements: enough to find the file,
// without the machine's own prefix (/home/someone/src/…).
func shortPath(p string) string {
	p = strings.TrimPrefix(p, "file://")
	p = strings.ReplaceAll(p, `\`, "/")
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}

// Frame classes: the repository's own code, an installed package (which
// may be the repository itself, installed), the language's runtime and
// standard library (never the repository: dropped).
const (
	frameOwn = iota
	frameInstalled
	frameRuntime
)

// Path and function marks of installed packages and of runtimes.
var (
	installedPaths = []string{"site-packages/", "dist-packages/", "node_modules/", "/go/pkg/mod/", ".cargo/registry/", "/.venv/", "/venv/", "/vendor/", "/gems/"}
	installedFuncs = []string{"org.junit.", "junit.", "org.gradle.", "org.apache.maven.", "tokio::", "kotlinx."}
	runtimePaths   = []string{"/lib/python", "<frozen", "<string>", "node:", "internal/modules/", "/usr/local/go/", "/usr/lib/go", "/rustc/", "/.rustup/",
		"/usr/lib/", "/usr/include/", "GOROOT/", "$GOROOT"}
	runtimeFuncs = []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "scala.", "std::", "core::", "alloc::", "rust_begin_unwind", "__rust",
		"runtime.", "testing.", "reflect.", "syscall.", "net/http.", "process.", "processTicksAndRejections", "Module._compile"}
)

// frameClass classifies a frame by its file and function.
func frameClass(fn, file string) int {
	for _, p := range installedPaths {
		if strings.Contains(file, p) {
			return frameInstalled
		}
	}
	for _, p := range installedFuncs {
		if strings.HasPrefix(fn, p) {
			return frameInstalled
		}
	}
	for _, p := range runtimePaths {
		if strings.Contains(file, p) {
			return frameRuntime
		}
	}
	for _, p := range runtimeFuncs {
		if strings.HasPrefix(fn, p) {
			return frameRuntime
		}
	}
	if file == "Native Method" || file == "Unknown Source" || fn == "" && file == "" {
		return frameRuntime
	}
	return frameOwn
}

// builtinErrors are exception types every codebase raises: naming one
// says nothing about where.
var builtinErrors = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`Error Exception RuntimeError ValueError TypeError KeyError IndexError AttributeError
		NameError ImportError ModuleNotFoundError AssertionError NotImplementedError OSError IOError FileNotFoundError
		PermissionError ZeroDivisionError RecursionError StopIteration UnicodeDecodeError UnicodeEncodeError
		KeyboardInterrupt SystemExit TimeoutError ConnectionError LookupError ArithmeticError OverflowError
		ReferenceError SyntaxError RangeError EvalError URIError AggregateError
		NullPointerException IllegalArgumentException IllegalStateException IndexOutOfBoundsException
		ArrayIndexOutOfBoundsException ClassCastException NumberFormatException UnsupportedOperationException
		ConcurrentModificationException ArithmeticException RuntimeException IOException FileNotFoundException
		InterruptedException ClassNotFoundException NoSuchElementException NoSuchMethodException
		NoSuchFieldException StackOverflowError OutOfMemoryError InvocationTargetException
		ArgumentError NoMethodError StandardError ZeroDivisionError
		InvalidOperationException ArgumentNullException ArgumentException NullReferenceException`) {
		m[w] = true
	}
	return m
}()

// isTaskWord reports words that every bug report and feature request
// uses, whatever the code: they carry no information about where.
func isTaskWord(w string) bool {
	_, ok := taskWords[w]
	return ok
}

var taskWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`hi hello hey thanks thank please sorry issue issues bug bugs problem problems
		report reported reporting describe description expected expect expecting actual actually behavior behaviour
		reproduce reproduced reproduction reproducible repro steps step version versions environment env os
		happen happens happened happening occur occurs occurred fails fail failed failing failure work works worked
		working broken break breaks seems seem seemed like would could should might must may want wanted wants
		need needs needed feature features request requests requested propose proposal proposed suggestion suggest
		add adding added support supported supporting currently current instead also still already really just
		every everything something anything nothing someone anyone example examples instance case cases way ways
		thing things time times using use used uses get gets got getting make makes made making run runs ran running
		try tried trying able unable know think thought believe see saw seen look looks looking find found
		following follow below above attached attach screenshot log logs output trace traceback stack stacktrace
		error errors exception message messages line lines file files code project repo repository latest new old
		same different other another first second last one two three many much well good better best bad wrong
		right correct correctly incorrect properly proper possible possibly maybe perhaps probably since because
		though although however therefore thus anyway let lets allow allows allowed able without within given
		true false null none nil undefined yes okay cannot can't doesn't don't isn't won't didn't wasn't`) {
		m[w] = struct{}{}
	}
	return m
}()
