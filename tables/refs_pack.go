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
	key     refKey
	uses    []refUse
	maxLine int // the greatest line in uses
}

// refGroups collects a file's references per key, in the order keys first
// appear; its storage is reused from file to file, up to maxKeptRefBytes.
type refGroups struct {
	byKey     map[refKey]int
	order     []*refGroup
	pool      []*refGroup
	poolBytes int // refGroup.bytes of the pool's groups
}

// maxKeptRefBytes bounds the storage a refGroups keeps for the next file.
// Kept whole, each group's uses at the largest capacity it ever had, the
// storage grew with every dense file a worker met (70 MB per worker after
// 40 machine-made files) instead of staying at the largest file's.
const maxKeptRefBytes = 4 << 20

// bytes estimates the heap grp holds in a refGroups: the struct, its
// pointer in order or pool, its entry in byKey and its uses.
func (grp *refGroup) bytes() int { return 136 + 16*cap(grp.uses) }

func (g *refGroups) reset() {
	kept := g.poolBytes
	for _, grp := range g.order {
		kept += grp.bytes()
	}
	if g.byKey == nil || kept > maxKeptRefBytes {
		*g = refGroups{byKey: map[refKey]int{}}
		return
	}
	clear(g.byKey)
	for _, grp := range g.order {
		grp.key = refKey{} // the file's strings go with the file
		grp.uses = grp.uses[:0]
		g.pool = append(g.pool, grp)
	}
	g.poolBytes = kept
	clear(g.order)
	g.order = g.order[:0]
}

// add adds a use of k. With onePerLine (identifiers), a use on a line
// the group already has is dropped: the first one stays.
func (g *refGroups) add(k refKey, line, encl int, onePerLine bool) {
	i, ok := g.byKey[k]
	if ok && onePerLine && line <= g.order[i].maxLine {
		// Uses come mostly in line order, so this scan is rare.
		for _, u := range g.order[i].uses {
			if u.line == line {
				return
			}
		}
	}
	if !ok {
		var grp *refGroup
		if n := len(g.pool); n > 0 {
			grp, g.pool = g.pool[n-1], g.pool[:n-1]
			g.poolBytes -= grp.bytes()
		} else {
			grp = &refGroup{}
		}
		grp.key = k
		grp.maxLine = line
		i = len(g.order)
		g.byKey[k] = i
		g.order = append(g.order, grp)
	}
	grp := g.order[i]
	grp.uses = append(grp.uses, refUse{line, encl})
	grp.maxLine = max(grp.maxLine, line)
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
// uses, and groups, the compressed (sources.go) form of its
// (kind, name, target) groups in the order they first appear, stored by
// column, which compresses 10 % better on GOROOT/src/net than group by
// group (names beside names, line deltas beside line deltas):
//
//	uvarint G, the number of groups
//	G × uvarint kind
//	G × (uvarint len(name), name)
//	G × (uvarint len(target), target)
//	G × uvarint n, the group's number of uses
//	per group, n × uvarint line delta (the first: the line itself)
//	per group, n × uvarint 1 + the enclosing symbol's ordinal (0: none)
//
// which are the two halves of packUses's encoding of each group.
// Names are found through ref_keys (strings.ToLower(name)) and imports
// through ref_imports (the imported name), posting lists of files
// (refkeys.go); a reader decodes the groups of the files listed and keeps
// the name's: a row per group and an index on the name took 3.3 times the
// bytes on GOROOT/src/net.

// refsEncoder builds a refs.groups stream, column by column.
type refsEncoder struct {
	g                                       int
	kinds, names, targets, ns, lines, encls []byte
}

func (e *refsEncoder) reset() {
	e.g = 0
	e.kinds, e.names, e.targets, e.ns = e.kinds[:0], e.names[:0], e.targets[:0], e.ns[:0]
	e.lines, e.encls = e.lines[:0], e.encls[:0]
}

// add appends a group; uses are sorted by line as packUses sorts them.
func (e *refsEncoder) add(kind int64, name, target string, uses []refUse) {
	if !slices.IsSortedFunc(uses, func(a, b refUse) int { return cmp.Compare(a.line, b.line) }) {
		slices.SortStableFunc(uses, func(a, b refUse) int { return cmp.Compare(a.line, b.line) })
	}
	e.g++
	e.kinds = binary.AppendUvarint(e.kinds, uint64(kind))
	e.names = appendUvarintString(e.names, name)
	e.targets = appendUvarintString(e.targets, target)
	e.ns = binary.AppendUvarint(e.ns, uint64(len(uses)))
	prev := 0
	for _, u := range uses {
		e.lines = binary.AppendUvarint(e.lines, uint64(u.line-prev))
		e.encls = binary.AppendUvarint(e.encls, uint64(u.encl))
		prev = u.line
	}
}

// appendTo appends the stream to b.
func (e *refsEncoder) appendTo(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(e.g))
	for _, col := range [...][]byte{e.kinds, e.names, e.targets, e.ns, e.lines, e.encls} {
		b = append(b, col...)
	}
	return b
}

func appendUvarintString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// storedGroup is one group of a decoded refs.groups stream; lines and
// encls are its runs of the two use columns, inside the stream.
type storedGroup struct {
	kind         int64
	name, target string
	n            int
	lines, encls []byte
}

// uses returns the group's uses encoded as packUses encodes them: its
// line and enclosing-symbol varints interleaved (scanRefGroups checked
// that each run holds n varints).
func (g *storedGroup) uses() []byte {
	b := make([]byte, 0, len(g.lines)+len(g.encls))
	l, e := g.lines, g.encls
	for range g.n {
		k := varintLen(l)
		b = append(b, l[:k]...)
		l = l[k:]
		k = varintLen(e)
		b = append(b, e[:k]...)
		e = e[k:]
	}
	return b
}

// varintLen is the length of the varint b starts with (len(b) if none
// ends in b).
func varintLen(b []byte) int {
	for i, c := range b {
		if c < 0x80 {
			return i + 1
		}
	}
	return len(b)
}

var errBadGroups = fmt.Errorf("%w: refs.groups malformed", ErrDamaged)

// refsCursor walks one column of a refs.groups stream.
type refsCursor struct{ b []byte }

func (c *refsCursor) num() (uint64, bool) {
	v, k := binary.Uvarint(c.b)
	if k <= 0 {
		return 0, false
	}
	c.b = c.b[k:]
	return v, true
}

// bytes returns the next length-prefixed string, without copying it.
func (c *refsCursor) bytes() ([]byte, bool) {
	l, ok := c.num()
	if !ok || uint64(len(c.b)) < l {
		return nil, false
	}
	s := c.b[:l:l]
	c.b = c.b[l:]
	return s, true
}

// skip passes over the next n unsigned varints and returns their bytes.
func (c *refsCursor) skip(n int) ([]byte, bool) {
	i := 0
	for ; n > 0; n-- {
		start := i
		for {
			if i >= len(c.b) || i-start >= binary.MaxVarintLen64 {
				return nil, false
			}
			i++
			if c.b[i-1] < 0x80 {
				break
			}
		}
	}
	s := c.b[:i:i]
	c.b = c.b[i:]
	return s, true
}

// scanRefGroups calls fn, in order, for each group of a decompressed
// refs.groups stream that want accepts; want sees the group's kind, name
// and target in place, so that the groups passed over cost no copies.
func scanRefGroups(b []byte, want func(kind uint64, name, target []byte) bool, fn func(g storedGroup) bool) error {
	c := refsCursor{b}
	count, ok := c.num()
	if !ok || count > uint64(len(b)) {
		return errBadGroups
	}
	g := int(count)
	// The column boundaries: each column is walked once to find its end.
	kinds := c
	if _, ok := c.skip(g); !ok {
		return errBadGroups
	}
	names := c
	for range g {
		if _, ok := c.bytes(); !ok {
			return errBadGroups
		}
	}
	targets := c
	for range g {
		if _, ok := c.bytes(); !ok {
			return errBadGroups
		}
	}
	ns := c
	total := 0
	for range g {
		n, ok := c.num()
		if !ok || n > uint64(len(b)) {
			return errBadGroups
		}
		total += int(n)
	}
	lines := c
	if _, ok := c.skip(total); !ok {
		return errBadGroups
	}
	encls := c
	if _, ok := c.skip(total); !ok || len(c.b) != 0 {
		return errBadGroups
	}
	for range g {
		kind, _ := kinds.num()
		name, _ := names.bytes()
		target, _ := targets.bytes()
		n, _ := ns.num()
		l, _ := lines.skip(int(n))
		e, _ := encls.skip(int(n))
		if !want(kind, name, target) {
			continue
		}
		if !fn(storedGroup{kind: int64(kind), name: string(name), target: string(target), n: int(n), lines: l, encls: e}) {
			break
		}
	}
	return nil
}

// eachRefGroup calls fn for each group of a decompressed refs.groups
// stream, in order, until fn returns false.
func eachRefGroup(b []byte, fn func(g storedGroup) bool) error {
	return scanRefGroups(b, func(uint64, []byte, []byte) bool { return true }, fn)
}

// nameKeyIs reports whether refNameKey(name) is lower, copying name only
// when it has other than ASCII letters.
func nameKeyIs(name []byte, lower string) bool {
	for _, c := range name {
		if c >= 0x80 {
			return refNameKey(string(name)) == lower
		}
	}
	if len(name) != len(lower) {
		return false
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// refNameKey is the ref_keys key of a name: the name lower-cased, as a
// usage lookup lower-cases the name it is given.
func refNameKey(name string) string { return strings.ToLower(name) }
