package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SymbolInfo is everything the index holds about one symbol.
type SymbolInfo struct {
	SID                  string
	FileID               int64
	Path, Language       string
	Kind, Name, Qualname string
	ParentSID            string
	StartLine, EndLine   int
	StartByte, EndByte   int
	Signature, Doc       string
	Exported             bool
	Decorators           []string
	Identifiers          []string
	Calls                []string
	Strings              []string
	Hash                 string
}

// SymbolSpan is a symbol in brief: what lists of symbols show.
type SymbolSpan struct {
	SID                string
	Kind, Qualname     string
	Signature          string // Neighbours only
	Path               string // SymbolBrief and SymbolChildren only
	StartLine, EndLine int
}

const symbolInfoSQL = `SELECT s.sid, s.file_id, f.path, f.language, s.kind, s.name, s.qualname, s.parent_sid, s.start_line, s.end_line,
  s.start_byte, s.end_byte, s.signature, s.doc, s.is_exported, s.decorators, s.hash,
  (SELECT count(*) FROM symbols o WHERE o.file_id = s.file_id AND o.id < s.id)
FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ?`

// SymbolInfo returns the symbol with the given sid; ok is false when the
// index has none.
func (db *DB) SymbolInfo(ctx context.Context, sid string) (d SymbolInfo, ok bool, err error) {
	err = db.snapshot(ctx, []string{symbolInfoSQL}, func(src *sourceCache) error {
		var decorators string
		var ord int
		err := src.queryRow(symbolInfoSQL, sid).Scan(&d.SID, &d.FileID, &d.Path, &d.Language, &d.Kind, &d.Name, &d.Qualname, &d.ParentSID,
			&d.StartLine, &d.EndLine, &d.StartByte, &d.EndByte, &d.Signature, &d.Doc, &d.Exported, &decorators, &d.Hash, &ord)
		if ok, err = found(err); !ok {
			return err
		}
		d.Decorators = SplitList(decorators)
		lists, err := src.symbolLists(d.FileID, ord)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Path, err)
		}
		d.Identifiers, d.Calls, d.Strings = lists[0], lists[1], lists[2]
		return nil
	})
	return d, ok && err == nil, err
}

func scanSpanWithPath(r scanner) (SymbolSpan, error) {
	var s SymbolSpan
	err := r.Scan(&s.SID, &s.Kind, &s.Qualname, &s.Path, &s.StartLine, &s.EndLine)
	return s, err
}

// SymbolBrief returns the symbol with the given sid in brief; ok is false
// when the index has none.
func (db *DB) SymbolBrief(ctx context.Context, sid string) (SymbolSpan, bool, error) {
	s, err := scanSpanWithPath(db.queryRow(ctx,
		`SELECT s.sid, s.kind, s.qualname, f.path, s.start_line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ?`, sid))
	ok, err := found(err)
	return s, ok, err
}

// SymbolChildren returns up to 200 symbols whose parent is sid, in line
// order.
func (db *DB) SymbolChildren(ctx context.Context, sid string) ([]SymbolSpan, error) {
	// A symbol's children are in its file: the file's symbols are indexed.
	return collect(ctx, db, `SELECT s.sid, s.kind, s.qualname, f.path, s.start_line, s.end_line
FROM symbols s JOIN files f ON f.id = s.file_id
WHERE s.file_id = (SELECT file_id FROM symbols WHERE sid = ?1) AND s.parent_sid = ?1
ORDER BY s.start_line, s.qualname LIMIT 200`, []any{sid}, scanSpanWithPath)
}

// SymbolExists reports whether the index holds a symbol with this sid.
func (db *DB) SymbolExists(ctx context.Context, sid string) (bool, error) {
	var one int
	return found(db.queryRow(ctx, `SELECT 1 FROM symbols WHERE sid = ?`, sid).Scan(&one))
}

// IndexedFile returns the content hash of the file at path as indexed, or,
// when it is not indexed, why the last run skipped it ("" when it did not
// see it either).
func (db *DB) IndexedFile(ctx context.Context, path string) (hash, skipped string, err error) {
	err = db.queryRow(ctx, `SELECT hash FROM files WHERE path = ?`, path).Scan(&hash)
	if ok, err := found(err); ok || err != nil {
		return hash, "", err
	}
	if _, err := found(db.queryRow(ctx, `SELECT reason FROM skipped WHERE path = ?`, path).Scan(&skipped)); err != nil {
		return "", "", err
	}
	return "", skipped, nil
}

// Neighbours is a symbol or chunk (the anchor) with its file, its parent
// symbol and its siblings (the symbols sharing its parent, in line order).
type Neighbours struct {
	Path, Language string
	Lines          int    // the file's line count
	Hash           string // the file's content hash when indexed
	Anchor         SymbolSpan
	Parent         *SymbolSpan
	Siblings       []SymbolSpan
}

// ErrNoAnchor is returned by Neighbours when the id or line names nothing
// in the index.
var ErrNoAnchor = errors.New("no such anchor in the index")

const (
	anchorSymbolSQL = `SELECT s.sid, s.kind, s.qualname, s.signature, s.start_line, s.end_line, s.parent_sid, f.path, f.language, f.lines, f.hash
		FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ?`
	anchorChunkSQL = `SELECT c.cid, c.start_line, c.end_line, c.symbol_sid, f.path, f.language, f.lines, f.hash
		FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.cid = ?`
	symbolSpanSQL   = `SELECT sid, kind, qualname, signature, start_line, end_line, parent_sid FROM symbols WHERE sid = ?`
	siblingsSQL     = `SELECT sid, kind, qualname, signature, start_line, end_line FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?) AND parent_sid = ? AND sid != ? ORDER BY start_line, end_line DESC`
	symbolAtLineSQL = `SELECT sid FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?1) AND start_line <= ?2 AND end_line >= ?2 ORDER BY end_line - start_line, start_line DESC LIMIT 1`
	chunkAtLineSQL  = `SELECT cid FROM chunks WHERE file_id = (SELECT id FROM files WHERE path = ?1) AND start_line <= ?2 AND end_line >= ?2 ORDER BY end_line - start_line LIMIT 1`
)

// Neighbours reads the anchor id (a symbol's sid or a chunk's cid; a
// chunk inside a symbol stands for that symbol), or, when id is "", the
// smallest symbol holding line of path, else the smallest chunk. All of
// it is read in one transaction, so it is one state of the index. It
// returns ErrNoAnchor when nothing matches.
func (db *DB) Neighbours(ctx context.Context, id, path string, line int) (*Neighbours, error) {
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
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
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	n := &Neighbours{}
	a := &n.Anchor
	var parentSID string
	if id != "" && id[0] == 's' {
		err = tx.QueryRowContext(ctx, anchorSymbolSQL, id).
			Scan(&a.SID, &a.Kind, &a.Qualname, &a.Signature, &a.StartLine, &a.EndLine, &parentSID, &n.Path, &n.Language, &n.Lines, &n.Hash)
	} else {
		var symSID string
		err = tx.QueryRowContext(ctx, anchorChunkSQL, id).
			Scan(&a.SID, &a.StartLine, &a.EndLine, &symSID, &n.Path, &n.Language, &n.Lines, &n.Hash)
		a.Kind = "chunk"
		if err == nil && symSID != "" {
			err = tx.QueryRowContext(ctx, symbolSpanSQL, symSID).
				Scan(&a.SID, &a.Kind, &a.Qualname, &a.Signature, &a.StartLine, &a.EndLine, &parentSID)
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoAnchor
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	if parentSID != "" {
		var pa SymbolSpan
		var grand string
		if err := tx.QueryRowContext(ctx, symbolSpanSQL, parentSID).
			Scan(&pa.SID, &pa.Kind, &pa.Qualname, &pa.Signature, &pa.StartLine, &pa.EndLine, &grand); err == nil {
			n.Parent = &pa
		}
	}
	rows, err := tx.QueryContext(ctx, siblingsSQL, n.Path, parentSID, a.SID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s SymbolSpan
		if err := rows.Scan(&s.SID, &s.Kind, &s.Qualname, &s.Signature, &s.StartLine, &s.EndLine); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		n.Siblings = append(n.Siblings, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	return n, nil
}
