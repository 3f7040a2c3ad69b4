package query

import (
	"context"
	"errors"
	"fmt"

	"github.com/viberag/viberag/tables"
)

// Neighbour is a symbol (or, at top level without one, a chunk) near an
// anchor: where it is and how far.
type Neighbour struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"` // "chunk" for a chunk anchor
	Qualname  string `json:"qualname"`
	Signature string `json:"signature,omitempty"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Distance  int    `json:"distance_lines,omitempty"` // lines between it and the anchor
}

// Neighbourhood is the code around an anchor: the anchor (the symbol an
// id names, or for a chunk id the smallest symbol holding the chunk), the
// symbol enclosing it and its siblings above and below, nearest first.
type Neighbourhood struct {
	Path, Language string
	Lines          int    // the file's line count
	Hash           string // the file's content hash when indexed
	Anchor         Neighbour
	Parent         *Neighbour
	Before, After  []Neighbour
}

// ErrNoAnchor: the id is not in the index, or no symbol nor chunk holds
// the line.
var ErrNoAnchor = tables.ErrNoAnchor

// Neighbourhood returns the neighbourhood of id (a symbol or chunk id),
// or, when id is empty, of the smallest symbol (else chunk) holding line
// of path; at most before siblings above and after below. Every row comes
// from one read transaction. ErrNoAnchor when there is nothing there.
func (p *Planner) Neighbourhood(ctx context.Context, id, path string, line, before, after int) (*Neighbourhood, error) {
	nb, err := p.db.Neighbours(ctx, id, path, line)
	if err != nil && !errors.Is(err, ErrNoAnchor) {
		return nil, fmt.Errorf("surrounding code: %w", err)
	}
	if err != nil {
		return nil, err
	}
	n := &Neighbourhood{Path: nb.Path, Language: nb.Language, Lines: nb.Lines, Hash: nb.Hash,
		Anchor: neighbour(nb.Anchor), Before: []Neighbour{}, After: []Neighbour{}}
	a := &n.Anchor
	if nb.Parent != nil {
		pa := neighbour(*nb.Parent)
		n.Parent = &pa
	}
	sibs := make([]Neighbour, len(nb.Siblings))
	for i, s := range nb.Siblings {
		sibs[i] = neighbour(s)
	}
	for i := len(sibs) - 1; i >= 0 && len(n.Before) < before; i-- {
		if s := sibs[i]; s.EndLine < a.StartLine {
			s.Distance = a.StartLine - s.EndLine
			n.Before = append(n.Before, s)
		}
	}
	for _, s := range sibs {
		if len(n.After) >= after {
			break
		}
		if s.StartLine > a.EndLine {
			s.Distance = s.StartLine - a.EndLine
			n.After = append(n.After, s)
		}
	}
	return n, nil
}

// IndexedFile returns the content hash of an indexed file; for a file
// the index does not hold, "" and the reason it was skipped ("" when it
// was not seen at all).
func (p *Planner) IndexedFile(ctx context.Context, path string) (hash, skipped string, err error) {
	hash, skipped, err = p.db.IndexedFile(ctx, path)
	if err != nil {
		return "", "", fmt.Errorf("look up %s: %w", path, err)
	}
	return hash, skipped, nil
}

// SymbolExists reports whether sid names a symbol in the index.
func (p *Planner) SymbolExists(ctx context.Context, sid string) (bool, error) {
	_, ok, err := p.db.SymbolBySID(ctx, sid)
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", sid, err)
	}
	return ok, nil
}

// neighbour is a Neighbour of a symbol span.
func neighbour(s tables.SymbolSpan) Neighbour {
	return Neighbour{ID: s.SID, Kind: s.Kind, Qualname: s.Qualname, Signature: s.Signature, StartLine: s.StartLine, EndLine: s.EndLine}
}
