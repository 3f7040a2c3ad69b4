package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
var ErrNoAnchor = errors.New("no such anchor in the index")

const (
	anchorSymbolSQL = `SELECT s.sid, s.kind, s.qualname, s.signature, s.start_line, s.end_line, s.parent_sid, s.path, f.language, f.lines, f.hash
		FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ?`
	anchorChunkSQL = `SELECT c.cid, c.start_line, c.end_line, c.symbol_sid, c.path, f.language, f.lines, f.hash
		FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.cid = ?`
	symbolByIDSQL    = `SELECT sid, kind, qualname, signature, start_line, end_line, parent_sid FROM symbols WHERE sid = ?`
	siblingsSQL      = `SELECT sid, kind, qualname, signature, start_line, end_line FROM symbols WHERE path = ? AND parent_sid = ? AND sid != ? ORDER BY start_line, end_line DESC`
	symbolAtLineSQL  = `SELECT sid FROM symbols WHERE path = ?1 AND start_line <= ?2 AND end_line >= ?2 ORDER BY end_line - start_line, start_line DESC LIMIT 1`
	chunkAtLineSQL   = `SELECT cid FROM chunks WHERE path = ?1 AND start_line <= ?2 AND end_line >= ?2 ORDER BY end_line - start_line LIMIT 1`
	fileHashSQL      = `SELECT hash FROM files WHERE path = ?`
	skippedReasonSQL = `SELECT reason FROM skipped WHERE path = ?`
	symbolExistsSQL  = `SELECT 1 FROM symbols WHERE sid = ?`
)

// Neighbourhood returns the neighbourhood of id (a symbol or chunk id),
// or, when id is empty, of the smallest symbol (else chunk) holding line
// of path; at most before siblings above and after below. Every row comes
// from one read transaction. ErrNoAnchor when there is nothing there.
func (p *Planner) Neighbourhood(ctx context.Context, id, path string, line, before, after int) (*Neighbourhood, error) {
	tx, err := p.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("surrounding code: %w", err)
	}
	defer tx.Rollback()
	if id == "" {
		err := tx.QueryRowContext(ctx, symbolAtLineSQL, path, line).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.QueryRowContext(ctx, chunkAtLineSQL, path, line).Scan(&id)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNoAnchor
		}
		if err != nil {
			return nil, fmt.Errorf("surrounding code %s:%d: %w", path, line, err)
		}
	}
	n := &Neighbourhood{Before: []Neighbour{}, After: []Neighbour{}}
	a := &n.Anchor
	var parentSID string
	if id != "" && id[0] == 's' {
		err = tx.QueryRowContext(ctx, anchorSymbolSQL, id).
			Scan(&a.ID, &a.Kind, &a.Qualname, &a.Signature, &a.StartLine, &a.EndLine, &parentSID, &n.Path, &n.Language, &n.Lines, &n.Hash)
	} else {
		var symSID string
		err = tx.QueryRowContext(ctx, anchorChunkSQL, id).
			Scan(&a.ID, &a.StartLine, &a.EndLine, &symSID, &n.Path, &n.Language, &n.Lines, &n.Hash)
		a.Kind = "chunk"
		if err == nil && symSID != "" {
			// The smallest symbol holding the chunk anchors the view.
			err = tx.QueryRowContext(ctx, symbolByIDSQL, symSID).
				Scan(&a.ID, &a.Kind, &a.Qualname, &a.Signature, &a.StartLine, &a.EndLine, &parentSID)
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoAnchor
	}
	if err != nil {
		return nil, fmt.Errorf("surrounding code %s: %w", id, err)
	}
	if parentSID != "" {
		var pa Neighbour
		var grand string
		if err := tx.QueryRowContext(ctx, symbolByIDSQL, parentSID).
			Scan(&pa.ID, &pa.Kind, &pa.Qualname, &pa.Signature, &pa.StartLine, &pa.EndLine, &grand); err == nil {
			n.Parent = &pa
		}
	}
	rows, err := tx.QueryContext(ctx, siblingsSQL, n.Path, parentSID, a.ID)
	if err != nil {
		return nil, fmt.Errorf("surrounding code %s: %w", id, err)
	}
	defer rows.Close()
	var sibs []Neighbour
	for rows.Next() {
		var s Neighbour
		if err := rows.Scan(&s.ID, &s.Kind, &s.Qualname, &s.Signature, &s.StartLine, &s.EndLine); err != nil {
			return nil, fmt.Errorf("surrounding code %s: %w", id, err)
		}
		sibs = append(sibs, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("surrounding code %s: %w", id, err)
	}
	// sibs is sorted by start line: those ending before the anchor are
	// above it (walk backwards for nearest first), those starting after
	// it below. A sibling overlapping the anchor (a chunk anchor at top
	// level) is neither.
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
	err = p.queryRow(ctx, fileHashSQL, path).Scan(&hash)
	if err == nil {
		return hash, "", nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("look up %s: %w", path, err)
	}
	if err := p.queryRow(ctx, skippedReasonSQL, path).Scan(&skipped); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("look up %s: %w", path, err)
	}
	return "", skipped, nil
}

// SymbolExists reports whether sid names a symbol in the index.
func (p *Planner) SymbolExists(ctx context.Context, sid string) (bool, error) {
	var one int
	err := p.queryRow(ctx, symbolExistsSQL, sid).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", sid, err)
	}
	return true, nil
}
