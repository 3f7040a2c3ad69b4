package query

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// Route is the decision of the auto intent.
type Route struct {
	Intent Intent
	// Text is what the chosen intent searches for: the query, the text
	// between quotes, or the name in a usage question.
	Text string
	// Rule names the rule that decided, for Response.Routing.
	Rule string
}

// Routing rules, in the order Decide tries them. The first that matches
// decides. The rules look only at the query's shape, never at the index,
// so the same query always routes the same way.
const (
	RuleQuoted     = "quoted"           // "…", '…' or `…` around the whole query → exact_text of the inside
	RuleUsage      = "usage-question"   // where is X used, callers of X, usages of X … → usage of X
	RuleIdentifier = "identifier"       // one identifier, maybe qualified (a.b, A::B, a->b, A\B, A#b) → definition fused with concept
	RuleError      = "error-message"    // "Error: …", "panic: …" → exact_text of the message after the prefix; a printf verb (%s, %d, %v) → exact_text
	RuleCode       = "code"             // several lines, ; { } or operators (=> := == != && ||), or a call with arguments and no English, unless a change request or a how/what/why question (proseAboutCode) → similar_code
	RuleConcept    = "natural-language" // anything else → concept
	// RuleTaskText comes before the others: long task text (IsTaskText)
	// is reduced (ReduceTaskText, shown in Response.QueryUsed) and the
	// reduction searched as concept, or as a definition when it is one
	// identifier.
	RuleTaskText = "task-text"
)

var (
	identRe = lazyregexp.New(`^[A-Za-z_$@][A-Za-z0-9_$]*(?:(?:::|\.|->|\\|#)[A-Za-z_$][A-Za-z0-9_$]*)*[?!]?$`)

	// Usage questions; the name is the last group.
	usageRes = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(?:where|how)\s+(?:is|are|was)\s+(\S+)\s+(?:used|called|referenced|invoked|imported|instantiated)\s*\??$`),
		regexp.MustCompile(`(?i)^(?:who|what|which\s+\w+)\s+(?:calls|uses|references|imports)\s+(\S+)\s*\??$`),
		regexp.MustCompile(`(?i)^(?:(?:find|show|list|get)\s+)?(?:all\s+)?(?:callers|usages|uses|references|refs|call\s+sites|callsites|users)\s+(?:of|to|for)\s+(\S+)\s*\??$`),
		regexp.MustCompile(`(?i)^(\S+)\s+(?:usages|callers|references|call\s+sites)$`),
	}

	errorPrefixRe = lazyregexp.New(`(?i)^[A-Za-z_.]*(?:error|exception|panic|fatal|warning|traceback)\b\s*[:!]`)
	printfVerbRe  = lazyregexp.New(`(?:^|\s|['"(\[=:])%[-+# 0]*[0-9]*(?:\.[0-9]+)?[sdvqfxXwTgeicp]\b`)
	callRe        = lazyregexp.New(`[A-Za-z_][A-Za-z0-9_.]*\([^()]*[^()\s][^()]*\)`)
)

// codeTokens are substrings that do not occur in English questions but
// do in code.
var codeTokens = []string{";", "{", "}", "=>", ":=", "==", "!=", "&&", "||", "+=", "-=", "<-", "::<", "</", "/>"}

// Decide applies the routing rules to an auto query.
func Decide(q string) Route {
	q = strings.TrimSpace(q)
	if inner, ok := unquote(q); ok {
		return Route{ExactText, inner, RuleQuoted}
	}
	if !strings.Contains(q, "\n") {
		for _, re := range usageRes {
			if m := re.FindStringSubmatch(q); m != nil {
				name := strings.Trim(m[len(m)-1], "`'\"?")
				name = strings.TrimSuffix(name, "()")
				if identRe.MatchString(name) {
					return Route{Usage, name, RuleUsage}
				}
			}
		}
		if identRe.MatchString(q) {
			return Route{Definition, q, RuleIdentifier}
		}
	}
	if m := errorPrefixRe.FindString(q); m != "" {
		// Code raises the message, not its type and colon
		// (`raise RuntimeError("Working outside…")`); every line holding
		// "RuntimeError: Working outside…" holds the message too, so the
		// message alone finds a superset: the source as well as the docs.
		if msg := strings.TrimSpace(q[len(m):]); utf8.RuneCountInString(msg) >= 3 {
			return Route{ExactText, msg, RuleError}
		}
		return Route{ExactText, q, RuleError}
	}
	if printfVerbRe.MatchString(q) && strings.Contains(q, " ") {
		return Route{ExactText, q, RuleError}
	}
	if looksLikeCode(q) && !commitTyped(q) && !proseAboutCode(q) {
		return Route{SimilarCode, q, RuleCode}
	}
	return Route{Concept, q, RuleConcept}
}

// unquote returns the inside of a query wrapped whole in matching quotes.
func unquote(q string) (string, bool) {
	if len(q) < 3 {
		return "", false
	}
	for _, c := range []byte{'"', '\'', '`'} {
		if q[0] == c && q[len(q)-1] == c {
			inner := q[1 : len(q)-1]
			if strings.IndexByte(inner, c) >= 0 && c != '`' {
				// "a" and "b": two quoted strings, not one.
				return "", false
			}
			if strings.TrimSpace(inner) == "" {
				return "", false
			}
			return inner, true
		}
	}
	return "", false
}

func looksLikeCode(q string) bool {
	if strings.Contains(strings.TrimSpace(q), "\n") {
		return true
	}
	// A sentence that has a brace, an operator or an inline snippet in
	// it ("Fix crash when logger == Rails.logger", "support {name}
	// placeholders") is still a sentence: its words, not its
	// punctuation, say what it is about.
	if readsAsProse(q) {
		return false
	}
	for _, t := range codeTokens {
		if strings.Contains(q, t) {
			return true
		}
	}
	// A call with arguments is code when the rest is not English: "how
	// does send(body) work" is a question about code, "send(body, 200)"
	// is code.
	if callRe.MatchString(q) {
		english := 0
		for _, w := range strings.Fields(strings.ToLower(q)) {
			if isStopWord(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })) {
				english++
			}
		}
		if english == 0 {
			return true
		}
	}
	// A definition keyword followed by a name and punctuation: "def
	// load(self):", "func (s *Server) Run", "class Foo(Base):".
	if defLineRe.MatchString(q) {
		return true
	}
	return false
}

// readsAsProse reports whether a one-line query reads as English: at least
// proseMinWords words, at least half of them plain words (two letters or more, once
// punctuation around them is trimmed), and stop words at the share prose
// has and code lacks (IsTaskText's measure).
func readsAsProse(q string) bool {
	words := strings.Fields(q)
	if len(words) < proseMinWords {
		return false
	}
	plain, stops := 0, 0
	for _, w := range words {
		w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
		if utf8.RuneCountInString(w) < 2 || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue // "i", "x": loop variables as often as words
		}
		plain++
		if isStopWord(w) {
			stops++
		}
	}
	return plain*100 >= len(words)*50 && stops*100 >= len(words)*15
}

// proseAboutCode reports whether a one-line query that writes code is
// prose about it all the same, which readsAsProse misses when the names
// it writes crowd out its stop words: a change to make or made
// (taskShapeOf: a verb of change first, a commit's prefix, a fix named,
// a commit's body: "Rename `LogContext.PushProperties()` to
// `LogContext.Push()`; add a non-params overload", "Drop mapBoth; override
// map2"), or a question opened by "how", "what" or "why" ("How does this
// work: …"). Searched as code, its snippet's punctuation finds the README
// and workflow files that look like it; its words say where the change or
// the answer is.
func proseAboutCode(q string) bool {
	if strings.Contains(q, "\n") || len(strings.Fields(q)) < proseMinWords {
		return false
	}
	_, task := taskShapeOf(q, false)
	return task || proseQuestionRe.MatchString(q)
}

// proseQuestionRe matches the wh-words that open questions and no code:
// an auxiliary ("do", "is") opens code as often, and "when", "where" and
// "which" open Kotlin's when, Haskell's where clauses and SQL.
var proseQuestionRe = lazyregexp.New(`(?i)^\s*(?:how|what|why)\s`)

// proseMinWords is the fewest words readsAsProse calls a sentence: shorter
// text has too few words to tell English from code.
const proseMinWords = 5

var defLineRe = lazyregexp.New(`^(?:def|async def|func|fn|pub fn|function|fun|class|struct|interface|trait|impl|defmodule|defp?|local function|public|private|protected|static)\s+[^\s]*[A-Za-z_][^\s]*\s*[(<:{\[]`)
