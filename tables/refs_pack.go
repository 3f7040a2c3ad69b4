package tables

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/viberag/viberag/extract"
)

// refKey identifies one row of refs within a file.
type refKey struct{ kind, name, target string }

// refUse is one use: its line and 1 + the ordinal of its innermost
// enclosing symbol (0 at top level).
type refUse struct{ line, encl int }

type refGroup struct {
	key  refKey
	uses []refUse
}

// refGroups collects a file's references per key, in the order keys first
// appear; its storage is reused from file to file.
type refGroups struct {
	byKey map[refKey]int
	order []*refGroup
	pool  []*refGroup
}

func (g *refGroups) reset() {
	if g.byKey == nil {
		g.byKey = map[refKey]int{}
	}
	clear(g.byKey)
	for _, grp := range g.order {
		grp.uses = grp.uses[:0]
		g.pool = append(g.pool, grp)
	}
	g.order = g.order[:0]
}

func (g *refGroups) add(k refKey, line, encl int) {
	i, ok := g.byKey[k]
	if !ok {
		var grp *refGroup
		if n := len(g.pool); n > 0 {
			grp, g.pool = g.pool[n-1], g.pool[:n-1]
		} else {
			grp = &refGroup{}
		}
		grp.key = k
		i = len(g.order)
		g.byKey[k] = i
		g.order = append(g.order, grp)
	}
	g.order[i].uses = append(g.order[i].uses, refUse{line, encl})
}

// packUses encodes uses in line order (stable: uses on one line keep
// their order) as the refs.uses BLOB.
func packUses(uses []refUse) []byte {
	if !slices.IsSortedFunc(uses, func(a, b refUse) int { return cmp.Compare(a.line, b.line) }) {
		slices.SortStableFunc(uses, func(a, b refUse) int { return cmp.Compare(a.line, b.line) })
	}
	b := make([]byte, 0, 3*len(uses))
	prev := 0
	for _, u := range uses {
		b = binary.AppendUvarint(b, uint64(u.line-prev))
		b = binary.AppendUvarint(b, uint64(u.encl))
		prev = u.line
	}
	return b
}

var errBadUses = errors.New("refs.uses: malformed")

// unpackUses decodes a refs.uses BLOB of n uses, appending to dst.
func unpackUses(dst []refUse, b []byte, n int) ([]refUse, error) {
	line := 0
	for i := 0; i < n; i++ {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			return dst, errBadUses
		}
		b = b[k:]
		e, k := binary.Uvarint(b)
		if k <= 0 {
			return dst, errBadUses
		}
		b = b[k:]
		line += int(d)
		dst = append(dst, refUse{line, int(e)})
	}
	if len(b) != 0 {
		return dst, errBadUses
	}
	return dst, nil
}

// refs.kind codes: small integers take no bytes beyond the record header
// where the kind names took five.
var refKindNames = [...]string{1: extract.RefImport, 2: extract.RefCall, 3: extract.RefIdent, 4: extract.RefType}

// refKindCode returns the refs.kind code of an extract.Ref kind, or 0 for
// a kind refs does not store (string literals).
func refKindCode(kind string) int {
	for i, k := range refKindNames {
		if k == kind && k != "" {
			return i
		}
	}
	return 0
}

// refKindImport is the refs kind code of imports, which ref_imports also
// finds by their imported name.
const refKindImport = 1

// refKindName returns the kind name of a refs.kind code.
func refKindName(code int64) (string, error) {
	if code <= 0 || code >= int64(len(refKindNames)) {
		return "", fmt.Errorf("%w: refs.kind %d", ErrDamaged, code)
	}
	return refKindNames[code], nil
}

// ASCIILower lower-cases the ASCII letters of s, as SQLite's lower() does
// (the PostgreSQL reader folds names the same way).
func ASCIILower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// containsFold reports whether s holds lowNeedle (lower-cased by
// ASCIILower) ignoring ASCII case, without copying s.
func containsFold(s, lowNeedle string) bool {
	if lowNeedle == "" {
		return true
	}
	first := lowNeedle[0]
	upper := first
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(lowNeedle) <= len(s); i++ {
		// Jump to the next byte that can start a match.
		j := strings.IndexByte(s[i:], first)
		if upper != first {
			if k := strings.IndexByte(s[i:], upper); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			return false
		}
		i += j
		if i+len(lowNeedle) > len(s) {
			return false
		}
		if equalFoldASCII(s[i:i+len(lowNeedle)], lowNeedle) {
			return true
		}
	}
	return false
}

// equalFoldASCII reports whether s lower-cased by ASCIILower is low.
func equalFoldASCII(s, low string) bool {
	for i := 0; i < len(low); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != low[i] {
			return false
		}
	}
	return true
}

// A file's references are one refs row (rowid files.id): n, the number of
// uses, and groups, the DEFLATE-compressed (sources.go) sequence of its
// (kind, name, target) groups in the order they first appear, each
//
//	uvarint kind, uvarint len(name), name, uvarint len(target), target,
//	uvarint n, uvarint len(uses), uses (packUses)
//
// Names are found through ref_keys (strings.ToLower(name), file) and
// imports through ref_imports (target, file); a reader decodes the groups
// of the files found and keeps the groups of the name (schema 5; schema 4
// had one row per group and an index on the name, 2.4x the bytes).

// appendRefGroup appends one group to a refs.groups stream.
func appendRefGroup(b []byte, kind int64, name, target string, n int, uses []byte) []byte {
	b = binary.AppendUvarint(b, uint64(kind))
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	b = binary.AppendUvarint(b, uint64(len(target)))
	b = append(b, target...)
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(uses)))
	return append(b, uses...)
}

// storedGroup is one group of a decoded refs.groups stream; its strings
// and uses point into the stream.
type storedGroup struct {
	kind         int64
	name, target string
	n            int
	uses         []byte
}

var errBadGroups = fmt.Errorf("%w: refs.groups malformed", ErrDamaged)

// eachRefGroup calls fn for each group of a decompressed refs.groups
// stream, in order, until fn returns false.
func eachRefGroup(b []byte, fn func(g storedGroup) bool) error {
	str := func() (string, bool) {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return "", false
		}
		s := string(b[k : k+int(l)])
		b = b[k+int(l):]
		return s, true
	}
	num := func() (uint64, bool) {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return v, true
	}
	for len(b) > 0 {
		var g storedGroup
		kind, ok1 := num()
		name, ok2 := str()
		target, ok3 := str()
		n, ok4 := num()
		ul, ok5 := num()
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || uint64(len(b)) < ul || n > ul {
			return errBadGroups
		}
		g.kind, g.name, g.target, g.n, g.uses = int64(kind), name, target, int(n), b[:ul:ul]
		b = b[ul:]
		if !fn(g) {
			return nil
		}
	}
	return nil
}

// refNameKey is the ref_keys key of a name: the name lower-cased, as a
// usage lookup lower-cases the name it is given.
func refNameKey(name string) string { return strings.ToLower(name) }
