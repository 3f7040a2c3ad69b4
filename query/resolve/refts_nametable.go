package resolve

import "context"

// The language service finds a member's references only in the files
// whose table of names holds the member's name: the identifiers written
// in the file, and the quoted names that declare a member ("'a': 1") or
// index a value (x['a']). The quoted key of an indexed access type
// (T['a']) is no entry of that table: in a file that writes the name
// nowhere else, such a key is listed under no definition of it, however
// its indexed type reads.

// whyUnsearched is why an indexed access type's key in such a file is
// left out.
const whyUnsearched = "an indexed access type's key in a file that writes the name nowhere else (the language service does not search it)"

// tsTypeKeyUnsearched reports whether the occurrence at offset at of r's
// line is the quoted key of an indexed access type (the only kind of
// the name the reader records on the line) in a file whose names do not
// hold the name (tsNameTableHolds).
func tsTypeKeyUnsearched(ctx context.Context, ru *tsRules, r *refLine, line string, at int) bool {
	if !tsTypeKeyOnly(r) || !indexedByName(line, at, ru.rr.name) {
		return false
	}
	key := lineVar{r.FileID, -1, ru.rr.name} // -1: the table, not the text (names)
	return !memo(ru.named, key, func() bool {
		text, err := ru.rr.text(ctx, r.FileID)
		if err != nil {
			return true
		}
		listed := func(n int) bool { return ru.rr.listed[enclKey{file: r.FileID, start: n}] }
		return tsNameTableHolds(text, ru.rr.name, listed)
	})
}

// tsNameTableHolds reports whether text writes name where the language
// service's table of the file's names records it: as a word of code
// (outside comments, strings and a template's text), as a quoted key
// declaring a member ("'name':"), or as a quoted index on a line the
// refs do not list (listed(n) false for line n, 1-based: the reader
// records a type's quoted key, never a value's, so x['name'] there is a
// value's index).
func tsNameTableHolds(text []string, name string, listed func(int) bool) bool {
	const (
		code = iota
		block
		quoted
		template
	)
	state, quote := code, byte(0)
	var subst []int // the brace depth of each template substitution open
	depth := 0
	for n, l := range text {
		start := 0 // where the current string's text starts
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch state {
			case block:
				if c == '*' && i+1 < len(l) && l[i+1] == '/' {
					state, i = code, i+1
				}
			case quoted:
				switch {
				case c == '\\':
					i++
				case c == quote:
					state = code
					if l[start:i] == name && tsQuotedNameEntry(l, start-1, i, listed(n+1)) {
						return true
					}
				}
			case template:
				switch {
				case c == '\\':
					i++
				case c == '`':
					state = code
				case c == '$' && i+1 < len(l) && l[i+1] == '{':
					subst = append(subst, depth)
					state, i = code, i+1
				}
			default:
				switch {
				case c == '/' && i+1 < len(l) && l[i+1] == '/':
					i = len(l)
				case c == '/' && i+1 < len(l) && l[i+1] == '*':
					state, i = block, i+1
				case c == '\'' || c == '"':
					state, quote, start = quoted, c, i+1
				case c == '`':
					state = template
				case c == '{':
					depth++
				case c == '}' && len(subst) > 0 && subst[len(subst)-1] == depth:
					subst, state = subst[:len(subst)-1], template
				case c == '}':
					depth--
				case isWordRune(rune(c)) || c == '$':
					j := i
					for j < len(l) && (isWordRune(rune(l[j])) || l[j] == '$') {
						j++
					}
					if l[i:j] == name {
						return true
					}
					i = j - 1
				}
			}
		}
		if state == quoted {
			state = code // a string ends with its line
		}
	}
	return false
}

// tsQuotedNameEntry reports whether the string quoted from line[open]
// to line[end] is an entry of the table of names: a member's declared
// name ("'name':", "'name'?:") or, on a line the refs do not list, an
// index ("['name']").
func tsQuotedNameEntry(line string, open, end int, listed bool) bool {
	before := open - 1
	for before >= 0 && (line[before] == ' ' || line[before] == '\t') {
		before--
	}
	after := end + 1
	for after < len(line) && (line[after] == ' ' || line[after] == '\t' || line[after] == '?') {
		after++
	}
	switch {
	case after < len(line) && line[after] == ':':
		return true
	case before >= 0 && line[before] == '[' && after < len(line) && line[after] == ']':
		return !listed
	}
	return false
}
