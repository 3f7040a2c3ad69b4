package query

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Module paths a message writes. In Haskell, Ruby and Elixir a module's
// qualified name is its file's path: Data.Set.Internal lives in
// Data/Set/Internal.hs, Faraday::Options in lib/faraday/options.rb,
// Oban.Testing in lib/oban/testing.ex; a commit message often shortens
// the qualifiers to their initials (X.P.OrgMode for
// XMonad/Prompt/OrgMode.hs, D.B.Internal). Such a name names the file as
// a path does, where its qualifiers alone name only the files of their
// own stems (named.go).

// modulePathLanguages are the languages whose files are named by their
// modules' qualified names.
var modulePathLanguages = map[string]bool{"haskell": true, "ruby": true, "elixir": true}

// modulePath returns the parts of tok, lower-case and without
// separators, when tok is written as a module path: two or more parts
// joined by "." or "::", each capitalised, the last of two letters or
// more (Data.Set.Internal, X.P.OrgMode, Faraday::Options); nil otherwise.
// A lower-case part (res.send, Retrofit.Builder.converterFactories) makes
// a value or a member, not a module.
func modulePath(tok string) []string {
	if !strings.ContainsAny(tok, ".:") || strings.Contains(tok, "/") {
		return nil
	}
	parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == ':' })
	if len(parts) < 2 || utf8.RuneCountInString(parts[len(parts)-1]) < 2 {
		return nil
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		r, _ := utf8.DecodeRuneInString(p)
		if !unicode.IsUpper(r) || !isWordish(p) {
			return nil
		}
		out[i] = strings.ToLower(joined(p))
	}
	return out
}

// isWordish reports whether s holds only letters, digits and
// underscores.
func isWordish(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return false
		}
	}
	return true
}

// namesModule reports whether the file at p (a lower-case path) is the
// one module path mod names: the path's last directories and stem are
// mod's parts, a part of one letter standing for any name it begins.
func namesModule(p string, mod []string) bool {
	stem := strings.TrimSuffix(p, path.Ext(p))
	segs := strings.Split(stem, "/")
	if len(segs) < len(mod) {
		return false
	}
	segs = segs[len(segs)-len(mod):]
	for i, part := range mod {
		seg := joined(segs[i])
		if utf8.RuneCountInString(part) == 1 {
			if !strings.HasPrefix(seg, part) {
				return false
			}
		} else if seg != part {
			return false
		}
	}
	return true
}
