package query

import (
	"context"
	"math"
	"path"
	"strings"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// unit is one thing a channel can find: a symbol, a chunk or a file.
type unit struct {
	kind       string // KindDefinition, KindBlock or KindFile
	id         string
	rowid      int64 // symbols.id or chunks.id; files.id for files
	fileID     int64
	path       string
	start, end int
	title      string

	// Definitions only. decl is the symbols.id whose signature and doc
	// the hit shows (read by SymbolDecls for the hits shown only), 0 for
	// none; shown holds them when a channel has read them already.
	// signature holds the line of a usage hit.
	symKind, name, qualname, signature string
	exported                           bool
	decl                               int64
	shown                              *tables.SymbolDecl

	// Blocks only: content holds the chunk's text when a lift has read
	// it already (proximity.go), for the snippet; terms has bit i set
	// when the chunk holds the blocks channel's i-th term
	// (tables.ChunkRow.Terms).
	content *string
	terms   uint64
}

// unitKey identifies a unit in a unitPool: its kind and id, kept apart
// so that interning builds no string.
type unitKey struct{ kind, id string }

func (u *unit) key() unitKey { return unitKey{u.kind, u.id} }

// channel is one ranked list of units, best first, with scores (higher is
// better).
type channel struct {
	name   string
	weight float64
	units  []*unit
	scores []float64
	// absolute marks scores already on a 0..1 scale, which score fusion
	// uses as they are instead of dividing by the channel's maximum.
	absolute bool
	// cosine marks scores that are cosine similarities (vector channels),
	// which a hit's why reports.
	cosine bool
}

// best is the channel's highest score, and 0 when none is positive.
func (c *channel) best() float64 {
	m := 0.0
	for _, s := range c.scores {
		m = max(m, s)
	}
	return m
}

// similarity is the i-th score when it is a cosine, else 0.
func (c *channel) similarity(i int) float64 {
	if !c.cosine {
		return 0
	}
	return math.Round(c.scores[i]*1000) / 1000
}

func (c *channel) add(u *unit, score float64) {
	c.units = append(c.units, u)
	c.scores = append(c.scores, score)
}

// unitPool makes each symbol, chunk or file one *unit however many
// channels find it.
type unitPool map[unitKey]*unit

func (p unitPool) intern(u *unit) *unit {
	k := u.key()
	if old, ok := p[k]; ok {
		if old.decl == 0 && u.decl != 0 {
			old.decl = u.decl
		}
		return old
	}
	p[k] = u
	return u
}

// blockTitle turns a chunk header ("a/b.py › Class › method") into a title
// without the path, which the hit already carries.
func blockTitle(header, p string) string {
	t := strings.TrimPrefix(header, p)
	t = strings.TrimPrefix(t, " › ")
	if t == "" || t == header && strings.HasPrefix(header, p) {
		return path.Base(p)
	}
	return t
}

// defTitle is "kind qualname".
func defTitle(kind, qualname string) string { return kind + " " + qualname }

// scoped is a search's Scope, and the readable filters applied so far.
type scoped struct {
	scope   scope.Scope
	applied []string
	seen    map[string]bool
	// files are the file ids in scope, read once a search (filesIn).
	files     map[int64]bool
	filesRead bool
}

// filesIn returns the ids of the files in scope, nil when the scope is
// empty (every file is in it); the channels of one search share one read.
func (sc *scoped) filesIn(ctx context.Context, db tables.Reader) (map[int64]bool, error) {
	if sc.scope.IsZero() || sc.filesRead {
		return sc.files, nil
	}
	in, err := db.InScope(ctx, scope.Files, sc.scope)
	if err != nil {
		return nil, err
	}
	sc.files, sc.filesRead = in, true
	return in, nil
}

func newScoped(s scope.Scope) *scoped {
	return &scoped{scope: s, seen: map[string]bool{}}
}

// note records the filters applied to table t, for FiltersApplied.
func (sc *scoped) note(s scope.Scope, t scope.Table) {
	for _, l := range s.Applied(t) {
		if !sc.seen[l] {
			sc.seen[l] = true
			sc.applied = append(sc.applied, l)
		}
	}
}
