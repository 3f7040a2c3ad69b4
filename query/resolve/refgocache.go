package resolve

import (
	"container/list"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// GoChecks keeps the Go packages lookups type-checked, for the later
// lookups of the planners given it (a server answers many): checking is
// most of a Go lookup's cost, and an agent's lookups keep coming back to
// the same packages. A package is kept under what its check was made of —
// its files' paths and contents as the index holds them at the lookup,
// and what each of its imports resolved to (another kept package, a stub
// of an outside package, or nothing) — so a re-written file, a package
// checked to another depth or within another bound is checked afresh,
// never served from an older check: an answer is the same with the cache
// as without it. The planners of many repositories may share one
// GoChecks (a store's server: one bound for them all), each lookup
// naming its repository (New's scope): a kept package serves lookups of
// its own scope only, since contents are keyed by a fast hash that is
// not collision-resistant and one repository's sources must never stand
// in for another's.
// Bounded by the lines of the packages kept, the least recently used
// going first; safe for concurrent lookups. The zero value is ready to
// use.
type GoChecks struct {
	mu  sync.Mutex
	gen *goGen
	// Limit bounds the lines kept (0: goCacheLines).
	Limit int
	// checks counts the packages type-checked, not taken from the cache.
	checks atomic.Int64
}

// goCacheLines bounds the lines of the packages a GoChecks keeps checked:
// two lookups' worth (each checks up to GoCheckLines). A checked line
// holds 550–750 bytes (syntax tree, types, names), some 60 MB at the
// bound.
const goCacheLines = 2 * GoCheckLines

// goGen is one file set and the packages checked in it. Positions of
// every kept package are in the file set, which keeps the files of the
// packages that went until the generation is replaced: when they add up
// to the bound, a new generation starts (a lookup under way keeps the
// one it began with).
type goGen struct {
	fset *token.FileSet

	mu      sync.Mutex
	entries map[string]*goEntry
	// seqs are, by package content (goContentKey), the import paths its
	// check asked for, in order: resolving them again names its entry.
	seqs  map[string]*goSeq
	lru   list.List // *goEntry, most recently used first
	lines int       // of the entries
	dead  int       // of the files the entries that went left in fset
	next  uint64
}

type goSeq struct {
	paths []string
	n     int // entries of the content
}

// goEntry is one checked package and what a lookup that takes it adds
// to its own state.
type goEntry struct {
	key, content string
	id           uint64
	unit         *goUnit
	stubs        []*types.Package  // the outside packages it imports
	concrete     []*types.TypeName // their types it shows are not interfaces
	deps         []*goEntry        // the kept packages it imports
	lines        int
	elem         *list.Element
}

// current returns the generation a lookup checks in.
func (c *GoChecks) current() *goGen {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == nil || c.gen.wasted(c.bound()) {
		c.gen = &goGen{fset: token.NewFileSet(), entries: map[string]*goEntry{}, seqs: map[string]*goSeq{}}
	}
	return c.gen
}

func (c *GoChecks) bound() int {
	if c.Limit > 0 {
		return c.Limit
	}
	return goCacheLines
}

// Checked counts the packages type-checked, not taken from the cache.
func (c *GoChecks) Checked() int64 { return c.checks.Load() }

// Kept returns the packages kept and their lines: at most the bound,
// unless one package alone is larger.
func (c *GoChecks) Kept() (packages, lines int) {
	c.mu.Lock()
	g := c.gen
	c.mu.Unlock()
	if g == nil {
		return 0, 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.entries), g.lines
}

func (g *goGen) wasted(bound int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dead >= bound
}

// imports returns the import paths the check of the package of content
// key ck asked for, when one was kept.
func (g *goGen) imports(ck string) ([]string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.seqs[ck]
	if !ok {
		return nil, false
	}
	return s.paths, true
}

// get returns the entry of key, nil when none is kept.
func (g *goGen) get(key string) *goEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.entries[key]
	if e != nil {
		g.lru.MoveToFront(e.elem)
	}
	return e
}

// put keeps e, checked from content ck asking for imports paths, and
// returns the entry kept under its key: e, or one another lookup kept
// first. Then the least recently used entries go, and those importing
// them, until the lines kept fit bound.
func (g *goGen) put(e *goEntry, paths []string, bound int) *goEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	if old := g.entries[e.key]; old != nil {
		g.lru.MoveToFront(old.elem)
		return old
	}
	g.next++
	e.id = g.next
	e.unit.entry = e
	g.entries[e.key] = e
	e.elem = g.lru.PushFront(e)
	g.lines += e.lines
	s := g.seqs[e.content]
	if s == nil {
		s = &goSeq{paths: paths}
		g.seqs[e.content] = s
	}
	s.n++
	for g.lines > bound && g.lru.Len() > 1 {
		g.evict(g.lru.Back().Value.(*goEntry))
	}
	return e
}

// evict drops e and the entries importing it (their keys name it).
func (g *goGen) evict(e *goEntry) {
	if g.entries[e.key] != e {
		return
	}
	delete(g.entries, e.key)
	g.lru.Remove(e.elem)
	g.lines -= e.lines
	g.dead += e.lines
	if s := g.seqs[e.content]; s != nil {
		if s.n--; s.n == 0 {
			delete(g.seqs, e.content)
		}
	}
	for _, o := range g.entries {
		for _, d := range o.deps {
			if d == e {
				g.evict(o)
				break
			}
		}
	}
}

// goOutcome is what one import of a package resolved to, as its entry's
// key spells it.
func goOutcome(u *goUnit) string {
	if u == nil || u.pkg == nil || !u.done || u.entry == nil {
		return "-"
	}
	return "e" + strconv.FormatUint(u.entry.id, 10)
}

// goEntryKey is a package's content key with its imports' outcomes.
func goEntryKey(ck string, outcomes []string) string {
	return ck + "\x00" + strings.Join(outcomes, " ")
}
