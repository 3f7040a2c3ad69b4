package query

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// Task-shaped queries. A commit subject, a change request or a bug report
// ("Fix crash when the config is empty", "feat(parser): accept trailing
// commas", "[Console] fixed the help shortcut") asks for the source files
// a change is made in. Their tests, docs, changelogs and build files share
// its words — a changelog names every change, a test every behaviour — but
// the change is not made there. taskShapeOf reads such text by its first
// word, a verb of change, by a commit's prefix, or by the shape of a
// commit message's body; for it, fusion demotes
// tests, docs and examples, and prose and data files more than for a
// question, doc comments weigh less, and the verb itself is not searched.

// taskShape is what the shape of a task-shaped query says.
type taskShape struct {
	// scope is a commit prefix's scope: "parser" of "feat(parser):",
	// "net/http" of "net/http: …", "Console" of "[Console]".
	scope string
	// words is the text to search: the scope's words and the rest of
	// the text, without the commit's type and the first word, the verb
	// of change ("add", "fix"), which name the kind of change, not its
	// place, and match every add() and fix_ in the code.
	words string
}

var (
	// commitPrefixRe matches a commit subject's prefix: a conventional
	// type with an optional (scope), or a bracketed scope, or a scope of
	// up to three path-like words before a colon ("net/http:", "dnsapi
	// nsupdate:").
	commitPrefixRe = lazyregexp.New(`^(?:([A-Za-z]+)\(([^()\n]{1,40})\)!?:\s|\[([^\[\]\n]{1,40})\]:?\s|([\w./\-]+(?: [\w./\-]+){0,2})!?:\s)`)
	// conventionalTypes are the types of conventional commits: they name
	// the kind of change, not where it is.
	conventionalTypes = wordSet(`feat feature fix bugfix hotfix chore docs doc refactor perf test tests build ci style revert
		release deps dep security cleanup wip misc`)
	// changeVerbs open commit subjects and change requests. Verbs that
	// open doc comments as often ("return", "create", "get", "set",
	// "check", "convert") are not among them.
	changeVerbs = wordSet(`fix fixes fixed fixing add added adding remove removed removes removing delete deleted
		update updated updates upgrade upgraded bump bumped rename renamed refactor refactored refactoring rework reworked
		improve improved improves support supports make use don't dont do avoid avoided prevent prevented replace replaced
		move moved change changed changes simplify simplified implement implemented drop dropped deprecate deprecated
		expose exposed ensure clarify clarified document documented optimize optimise optimized enable enabled disable
		disabled revert reverted restore restored introduce introduced extract extracted migrate migrated switch tweak
		tweaked cleanup clean cleaned correct corrected hide handle handled allow skip ignore reduce speed mark accept
		merge merged split port polish tidy unify rewrite rewrote apply keep require prefer let`)
	// fixWords name a fix wherever they stand: a commit's subject or body
	// says what it fixes ("Stop leaking variables … Fixes #12", "EOF after
	// newline mishandled (fix #3)"), where a doc comment rarely does. The
	// adjective "fixed" ("a fixed size") is not among them.
	fixWords = wordSet(`fix fixes fixing bugfix bugfixes hotfix`)
)

// mergeRe matches the line git or a forge writes for a merge commit:
// "Merge pull request #12 from owner/branch", "Merge branch 'x' of url
// into y", "Merge remote-tracking branch 'origin/x'".
var mergeRe = lazyregexp.New(`(?i)\bmerge (?:pull request #?\d+(?: from \S+)?|(?:remote-tracking )?branch '[^'\n]*'(?: of \S+)?(?: into \S+)?)`)

// questionRe matches a question: a wh-word or an auxiliary first, or a
// question mark last.
var questionRe = lazyregexp.New(`(?i)^\s*(?:how|what|where|why|which|who|when|is|are|does|do|can|should)\b|\?\s*$`)

// sourcePriors reports whether a concept search of text takes the task
// priors: a task-shaped query, or a statement in prose that is not a
// question (a change described without a verb of change, a doc
// comment's sentence) asks for the code it describes, not for its tests,
// docs or changelog; a question may be answered by docs, and a name by
// whatever defines it.
//
// A statement that names tests or docs ("the tests of the retry loop")
// asks for them too: it keeps the question priors, which demote those
// files far less. A change request keeps the task priors even then: a
// change that names its tests is made in the source they test.
func sourcePriors(task, natural, defs bool, text string) bool {
	return task || natural && !defs && !questionRe.MatchString(text) && !namesRole(text)
}

// roleWords name the kinds of file the source priors demote.
var roleWords = wordSet(`test tests testing tested spec specs unittest unittests fixture fixtures
	doc docs documentation readme changelog`)

// typeWords name a program's type declarations.
var typeWords = wordSet(`type types typing typings typescript ts dts definition definitions declaration declarations`)

// namesTypes reports whether text names types or typings as a word.
func namesTypes(text string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if typeWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// namesRole reports whether text names tests or docs as a word.
func namesRole(text string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if roleWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// taskShapeOf reports whether q reads as a change to make or made (reduced
// is set when q was reduced as long task text, which is task-shaped
// whatever its first word), and what its shape says.
func taskShapeOf(q string, reduced bool) (taskShape, bool) {
	// A merge's line ("Merge pull request #12 from owner/branch") marks
	// a commit; its words name the merge, not the change, and "merge"
	// and "request" match code that merges and requests.
	merged := mergeRe.MatchString(q)
	if merged {
		q = mergeRe.ReplaceAllString(q, " ")
	}
	q = strings.TrimLeft(strings.TrimSpace(q), "*-• ")
	var sh taskShape
	// A conventional type marks a commit by itself; a bracketed scope or
	// a bare "word:" prefix ("Usage:", "Note:") only before a verb of
	// change ("[Console] fix …", "net/http: fix …").
	marked := false
	if m := commitPrefixRe.FindStringSubmatch(q); m != nil {
		switch {
		case m[1] != "":
			if marked = conventionalTypes[strings.ToLower(m[1])]; marked {
				sh.scope = m[2]
			}
		case m[3] != "":
			sh.scope = m[3]
		case conventionalTypes[strings.ToLower(m[4])]:
			marked = true
		default:
			sh.scope = m[4]
		}
		if marked || m[1] == "" {
			q = q[len(m[0]):]
		}
	}
	first := ""
	f := strings.Fields(q)
	if len(f) > 0 {
		first = bareWord(f[0])
	}
	if !reduced && !marked && !merged && (!changeVerbs[first] || operations(f)) && !namesFix(q) && !adverbChange(f) && !commitBody(q) {
		return taskShape{}, false
	}
	rest := q
	if changeVerbs[first] {
		rest = strings.TrimLeftFunc(q, unicode.IsSpace)
		rest = rest[len(strings.Fields(rest)[0]):]
	}
	sh.words = strings.TrimSpace(sh.scope + " " + strings.TrimSpace(rest))
	return sh, true
}

// bareWord returns word w of a text in lower case, without the
// punctuation and quotes around it.
func bareWord(w string) string {
	return strings.ToLower(strings.Trim(w, ".,:;!*`'\"()[]"))
}

// adverbChange reports whether the words f open with an adverb and a
// verb of change ("Only apply …", "explicitly mark …", "also fix …"): a
// change request, which puts an adverb before its verb as a doc comment
// puts one before a verb in -s ("Only returns …"). Both words stay in
// the searched text: the adverb often says how the code changes
// ("Gracefully handle …").
func adverbChange(f []string) bool {
	if len(f) < 3 {
		return false
	}
	return adverb(bareWord(f[0])) && changeVerbs[bareWord(f[1])]
}

// adverb reports whether w, lower case, is an adverb that may stand
// before a verb: one in -ly or one of a few short ones.
func adverb(w string) bool {
	switch w {
	case "also", "now", "always", "never", "just", "still", "again", "then":
		return true
	}
	return len(w) > 3 && strings.HasSuffix(w, "ly")
}

// commitBody reports whether q, a statement, reads as a commit message
// with its body: the body repeats the subject's opening words (a squash
// merge puts the pull request's title first and again in its body), or
// lists the changes as two or more bullets ("… * Swift 4.2 support *
// version bump in podspec"). A doc comment rarely does either, whatever
// its first word.
func commitBody(q string) bool {
	if questionRe.MatchString(q) {
		return false
	}
	return repeatsOpening(q, 3) || bullets(q) >= 2
}

// repeatsOpening reports whether the first n words of q, lower case,
// occur again in q.
func repeatsOpening(q string, n int) bool {
	w := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '\''
	})
	if len(w) < 2*n {
		return false
	}
	for i := 1; i+n <= len(w); i++ {
		if slices.Equal(w[i:i+n], w[:n]) {
			return true
		}
	}
	return false
}

// bullets counts the list items in q after its first word: a "*", "-" or
// "•" between spaces, before a word.
func bullets(q string) int {
	f := strings.Fields(q)
	n := 0
	for i := 1; i+1 < len(f); i++ {
		if (f[i] == "*" || f[i] == "-" || f[i] == "•") && startsWord(f[i+1]) {
			n++
		}
	}
	return n
}

// startsWord reports whether s opens with a letter, a digit or '_'.
func startsWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}

// namesFix reports whether q, a statement, names a fix in any of its
// words: a change described without a verb of change first ("Stop
// leaking variables … Fixes #12"). A question about a fix ("how does the
// retry fix the race?") asks how the code works.
func namesFix(q string) bool {
	if questionRe.MatchString(q) {
		return false
	}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if fixWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// operations reports whether the words f open with two verbs of change
// joined by "and" or "or" ("update and delete statement builders", "add
// or remove listeners"): the operations the code performs, named as a
// heading names them, not a change to make ("fix and test the pool" is
// one).
func operations(f []string) bool {
	if len(f) < 3 {
		return false
	}
	and := strings.ToLower(f[1])
	return (and == "and" || and == "or") && changeVerbs[bareWord(f[2])]
}

// commitTyped reports whether q opens with a conventional commit's type
// ("fix:", "feat(parser):", "refactor!:"): a commit subject, which reads
// as prose even when it is short and holds a call-like "type(scope)".
func commitTyped(q string) bool {
	m := commitPrefixRe.FindStringSubmatch(strings.TrimSpace(q))
	return m != nil && (conventionalTypes[strings.ToLower(m[1])] || m[1] == "" && m[3] == "" && conventionalTypes[strings.ToLower(m[4])])
}

// taskPriors applies the task priors to a candidate file in place of the
// question priors: tests and prose files take the task factors.
func (fc *fileCand) taskPriors(t *Tuning) {
	fc.applyPrior(fc.info.test, t.TaskTestPrior, "test file (statement)")
	fc.applyPrior(fc.info.aux, t.AuxPrior, "examples, docs, benchmarks or vendored code")
	fc.applyPrior(fc.info.reexport, t.ReexportPrior, "re-export file")
	fc.applyPrior(fc.info.prose, t.TaskProsePrior, "prose or data file (statement)")
}
