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

// refIDShift places a file's refs in a rowid range of their own: row i of
// file f has rowid f<<32 | i. The table is then clustered by file, and a
// re-write deletes a range instead of looking rows up through an index
// on file_id (12 MB on GOROOT/src).
const refIDShift = "32"

// refRowID is the rowid of the i-th refs row of file fileID.
func refRowID(fileID int64, i int) int64 { return fileID<<32 | int64(i) }

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

// refKindName returns the kind name of a refs.kind code.
func refKindName(code int64) (string, error) {
	if code <= 0 || code >= int64(len(refKindNames)) {
		return "", fmt.Errorf("%w: refs.kind %d", ErrDamaged, code)
	}
	return refKindNames[code], nil
}

// refFold is refs.fold for name: "" when SQLite's lower(), which folds
// ASCII letters only, already gives strings.ToLower(name), which is so for
// all but names with other letters; then the lower-cased name.
func refFold(name string) string {
	l := strings.ToLower(name)
	if l == ASCIILower(name) {
		return ""
	}
	return l
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
