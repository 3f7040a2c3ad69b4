package scan

// Lexical refs: calls, identifiers and string literals read from skeleton
// tokens. The C# and Swift scanners read a file's refs this way (each
// language gives its keywords and literal rules as a lexRefLang), so a
// symbol's and a chunk's identifiers, calls and strings are complete
// without a tree.

import (
	"strings"
)

// lexRefLang says how a language's tokens read as refs.
type lexRefLang struct {
	keywords map[string]bool
	// strValue returns a literal token's content ("" to skip it).
	strValue func(lit string) string
	// newWord is the keyword whose next name is a constructor call.
	newWord string
}

// lexRefs returns the refs of the tokens for which keep is true.
func lexRefs(src []byte, toks []skelTok, lines *lineIndex, lang *lexRefLang, keep func(t skelTok) bool, decl map[int]bool) []Ref {
	var out []Ref
	add := func(kind RefKind, name, target string, t skelTok) {
		out = append(out, Ref{Kind: kind, Name: name, Target: target,
			StartLine: lines.line(t.start), EndLine: lines.line(max(t.start, t.end-1)),
			StartByte: t.start, EndByte: t.end})
	}
	text := func(i int) string { return string(src[toks[i].start:toks[i].end]) }
	for i, t := range toks {
		if !keep(t) {
			continue
		}
		switch t.kind {
		case 's':
			if v := lang.strValue(text(i)); v != "" {
				add(RefString, v, "", t)
			}
		case 'w':
			w := text(i)
			if lang.keywords[w] || w[0] >= '0' && w[0] <= '9' {
				continue
			}
			if decl[i] || i > 0 && toks[i-1].kind == '@' {
				add(RefIdent, w, "", t) // declared names and attributes
				continue
			}
			if i > 0 && toks[i-1].kind == 'w' && text(i-1) == lang.newWord && lang.newWord != "" {
				add(RefCall, w, "", t)
				continue
			}
			next := i + 1
			// generic arguments before a call: Foo<T>(
			if next < len(toks) && toks[next].kind == '<' {
				depth := 0
				for j, stop := next, next+16; j < len(toks) && j < stop; j++ {
					if toks[j].kind == '<' {
						depth++
					} else if toks[j].kind == '>' {
						depth--
						if depth == 0 {
							if j+1 < len(toks) && toks[j+1].kind == '(' {
								next = j + 1
							}
							break
						}
					} else if toks[j].kind != 'w' && toks[j].kind != ',' && toks[j].kind != '.' && toks[j].kind != '?' {
						break
					}
				}
			}
			if next < len(toks) && toks[next].kind == '(' {
				target := ""
				// `case let .failed(e)`, `return .success(x)`: an
				// implicit member after a keyword has no receiver.
				implicit := i >= 2 && lang.keywords[text(i-2)] && toks[i-1].start > toks[i-2].end
				if i >= 2 && toks[i-2].kind == 'w' && !implicit {
					switch op := text(i - 1); op {
					case ".", "->", "::":
						target = text(i-2) + "." + w
					}
				} else if i >= 3 && toks[i-1].kind == '.' && toks[i-2].kind == '?' && toks[i-3].kind == 'w' {
					target = text(i-3) + "." + w // a?.b()
				}
				add(RefCall, w, target, t)
				continue
			}
			add(RefIdent, w, "", t)
		}
	}
	return out
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
