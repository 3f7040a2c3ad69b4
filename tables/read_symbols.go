package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
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
	Path               string // SymbolChildren only
	StartLine, EndLine int
}

const symbolInfoSQL = `SELECT s.sid, s.file_id, f.path, f.language, s.kind, s.name, s.qualname, s.parent_sid, s.start_line, s.end_line,
  s.start_byte, s.end_byte, s.is_exported, s.decorators, s.hash,
  (SELECT count(*) FROM symbols o WHERE o.file_id = s.file_id AND o.id < s.id)
FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ?`

// SymbolInfo returns the symbol with the given sid; ok is false when the
// index has none.
func (rd *IndexReader) SymbolInfo(ctx context.Context, sid string) (d SymbolInfo, ok bool, err error) {
	err = rd.snapshot(ctx, []string{symbolInfoSQL}, func(src *sourceCache) error {
		var decorators string
		var ord int
		err := src.queryRow(symbolInfoSQL, idValue('s', sid)).Scan(sidOf(&d.SID), &d.FileID, &d.Path, &d.Language, &d.Kind, &d.Name, &d.Qualname, sidOf(&d.ParentSID),
			&d.StartLine, &d.EndLine, &d.StartByte, &d.EndByte, &d.Exported, &decorators, hashOf(&d.Hash), &ord)
		if ok, err = found(err); !ok {
			return err
		}
		d.Decorators = SplitList(decorators)
		if d.Signature, d.Doc, _, err = src.symbolDecl(d.FileID, ord); err != nil {
			return fmt.Errorf("%s: %w", d.Path, err)
		}
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
	err := r.Scan(sidOf(&s.SID), &s.Kind, &s.Qualname, &s.Path, &s.StartLine, &s.EndLine)
	return s, err
}

// SymbolChildren returns up to 200 symbols whose parent is sid, in line
// order.
func (rd *IndexReader) SymbolChildren(ctx context.Context, sid string) ([]SymbolSpan, error) {
	// A symbol's children are in its file: the file's symbols are indexed.
	return collect(ctx, &rd.stmts, `SELECT s.sid, s.kind, s.qualname, f.path, s.start_line, s.end_line
FROM symbols s JOIN files f ON f.id = s.file_id
WHERE s.file_id = (SELECT file_id FROM symbols WHERE sid = ?1) AND s.parent_sid = ?1
ORDER BY s.start_line, s.qualname LIMIT 200`, []any{idValue('s', sid)}, scanSpanWithPath)
}

// IndexedFile returns the content hash of the file at path as indexed, or,
// when it is not indexed, why the last run skipped it ("" when it did not
// see it either).
func (rd *IndexReader) IndexedFile(ctx context.Context, path string) (hash, skipped string, err error) {
	err = rd.stmts.queryRow(ctx, `SELECT hash FROM files WHERE path = ?`, path).Scan(&hash)
	if ok, err := found(err); ok || err != nil {
		return hash, "", err
	}
	if _, err := found(rd.stmts.queryRow(ctx, `SELECT reason FROM skipped WHERE path = ?`, path).Scan(&skipped)); err != nil {
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
	anchorSymbolSQL = `SELECT s.id, s.file_id, s.sid, s.kind, s.qualname, s.start_line, s.end_line, s.parent_sid, f.path, f.language, f.lines, f.hash
		FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ?`
	anchorChunkSQL = `SELECT c.cid, c.start_line, c.end_line, c.symbol_sid, f.path, f.language, f.lines, f.hash
		FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.cid = ?`
	symbolSpanSQL   = `SELECT id, file_id, sid, kind, qualname, start_line, end_line, parent_sid FROM symbols WHERE sid = ?`
	siblingsSQL     = `SELECT id, file_id, sid, kind, qualname, start_line, end_line FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?) AND parent_sid IS ? AND sid IS NOT ? ORDER BY start_line, end_line DESC`
	symbolAtLineSQL = `SELECT sid FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?1) AND start_line <= ?2 AND end_line >= ?2 ORDER BY end_line - start_line, start_line DESC LIMIT 1`
	chunkAtLineSQL  = `SELECT cid FROM chunks WHERE file_id = (SELECT id FROM files WHERE path = ?1) AND start_line <= ?2 AND end_line >= ?2 ORDER BY end_line - start_line LIMIT 1`
)

// Neighbours reads the anchor id (a symbol's sid or a chunk's cid; a
// chunk inside a symbol stands for that symbol), or, when id is "", the
// smallest symbol holding line of path, else the smallest chunk. All of
// it is read in one transaction, so it is one state of the index. It
// returns ErrNoAnchor when nothing matches.
func (rd *IndexReader) Neighbours(ctx context.Context, id, path string, line int) (n *Neighbours, err error) {
	err = rd.snapshot(ctx, []string{anchorSymbolSQL, anchorChunkSQL, symbolSpanSQL, siblingsSQL, symbolAtLineSQL, chunkAtLineSQL}, func(src *sourceCache) error {
		n, err = neighbours(src, id, path, line)
		return err
	})
	return n, err
}

func neighbours(src *sourceCache, id, path string, line int) (*Neighbours, error) {
	if id == "" {
		err := src.queryRow(symbolAtLineSQL, path, line).Scan(sidOf(&id))
		if errors.Is(err, sql.ErrNoRows) {
			err = src.queryRow(chunkAtLineSQL, path, line).Scan(cidOf(&id))
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
	var rowID, fileID int64
	var err error
	if id != "" && id[0] == 's' {
		err = src.queryRow(anchorSymbolSQL, idValue('s', id)).
			Scan(&rowID, &fileID, sidOf(&a.SID), &a.Kind, &a.Qualname, &a.StartLine, &a.EndLine, sidOf(&parentSID), &n.Path, &n.Language, &n.Lines, &n.Hash)
	} else {
		var symSID string
		err = src.queryRow(anchorChunkSQL, idValue('c', id)).
			Scan(cidOf(&a.SID), &a.StartLine, &a.EndLine, sidOf(&symSID), &n.Path, &n.Language, &n.Lines, &n.Hash)
		a.Kind = "chunk"
		if err == nil && symSID != "" {
			err = src.queryRow(symbolSpanSQL, idValue('s', symSID)).
				Scan(&rowID, &fileID, sidOf(&a.SID), &a.Kind, &a.Qualname, &a.StartLine, &a.EndLine, sidOf(&parentSID))
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoAnchor
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	if rowID != 0 {
		var doc string
		if _, err := src.declOf(fileID, rowID, &a.Signature, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
	}
	if parentSID != "" {
		var pa SymbolSpan
		var grand, doc string
		if err := src.queryRow(symbolSpanSQL, idValue('s', parentSID)).
			Scan(&rowID, &fileID, sidOf(&pa.SID), &pa.Kind, &pa.Qualname, &pa.StartLine, &pa.EndLine, sidOf(&grand)); err == nil {
			if _, err := src.declOf(fileID, rowID, &pa.Signature, &doc); err != nil {
				return nil, fmt.Errorf("%s: %w", id, err)
			}
			n.Parent = &pa
		}
	}
	// A chunk anchor's cid is no sid (nil: IS NOT NULL holds for every
	// symbol), and a top-level anchor's parent is NULL.
	rows, err := src.query(siblingsSQL, n.Path, idOrNone('s', parentSID), idValue('s', a.SID))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var s SymbolSpan
		if err := rows.Scan(&rowID, &fileID, sidOf(&s.SID), &s.Kind, &s.Qualname, &s.StartLine, &s.EndLine); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		n.Siblings, ids = append(n.Siblings, s), append(ids, rowID)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	rows.Close()
	for i := range n.Siblings {
		var doc string
		if _, err := src.declOf(fileID, ids[i], &n.Siblings[i].Signature, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
	}
	return n, nil
}

// SymbolDecl is a symbol's signature and doc comment.
type SymbolDecl struct{ Signature, Doc string }

// symbolDeclsSQL reads, per symbol, its file and the file's decls (which
// place it by its row id): one statement, so one state of the index,
// whose rows repeat a file's blob for each of its symbols asked for (a
// search shows a few). Counting a symbol's place among its file's instead
// cost 30 µs per symbol of a large file.
const symbolDeclsSQL = `SELECT s.id, s.file_id, src.decls
FROM symbols s JOIN sources src ON src.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?1)) ORDER BY s.file_id, s.id`

// SymbolDecls returns the signature and doc of the symbols with the given
// row ids (SymbolRow.ID): a search reads them only for the hits it shows,
// decompressing one block of declsBlock symbols per hit. A symbol that is
// gone (its file re-written since the search read it) is missing from the
// map.
func (rd *IndexReader) SymbolDecls(ctx context.Context, ids []int64) (map[int64]SymbolDecl, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := rd.stmts.query(ctx, symbolDeclsSQL, jsonIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("symbol decls: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]SymbolDecl, len(ids))
	r := rd.codecs.declsReader()
	defer rd.codecs.putDeclsReader(r)
	r.l = nil // another call's block may have the same file id and block, not the same blob
	for rows.Next() {
		var id, file int64
		var blob sql.RawBytes // not copied: a file's blob may hold hundreds of symbols
		if err := rows.Scan(&id, &file, &blob); err != nil {
			return nil, fmt.Errorf("symbol decls: %w", err)
		}
		var d SymbolDecl
		if d.Signature, d.Doc, err = r.declByID(file, blob, id); err != nil {
			return nil, fmt.Errorf("symbol decls: %w", err)
		}
		out[id] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("symbol decls: %w", err)
	}
	return out, nil
}

// SymbolDeclsByFile is SymbolDecls for symbols whose files the caller
// knows (row ids by file id): it reads each file's decls once, where
// SymbolDecls reads (and sorts) them once per symbol, for a pass over
// hundreds of symbols. A symbol no longer among its file's (the file
// was re-written since) is missing from the map.
func (rd *IndexReader) SymbolDeclsByFile(ctx context.Context, ids map[int64][]int64) (map[int64]SymbolDecl, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// Ascending ids, and no ORDER BY: a sort would copy every blob.
	files := slices.Sorted(maps.Keys(ids))
	rows, err := rd.stmts.query(ctx, `SELECT id, decls FROM sources WHERE id IN (SELECT value FROM json_each(?1))`, jsonIDs(files))
	if err != nil {
		return nil, fmt.Errorf("symbol decls: %w", err)
	}
	defer rows.Close()
	out := map[int64]SymbolDecl{}
	r := rd.codecs.declsReader()
	defer rd.codecs.putDeclsReader(r)
	r.l = nil // another call's block may have the same file id and block, not the same blob
	for rows.Next() {
		var file int64
		var blob sql.RawBytes // not copied: read in place
		if err := rows.Scan(&file, &blob); err != nil {
			return nil, fmt.Errorf("symbol decls: %w", err)
		}
		first, nb, _, err := declsBlocks(blob, -1)
		if err != nil {
			return nil, fmt.Errorf("symbol decls: file %d: %w", file, err)
		}
		for _, id := range ids[file] {
			if id < first || id-first >= int64(nb)*declsBlock {
				continue // not among the file's now
			}
			var d SymbolDecl
			if d.Signature, d.Doc, err = r.decl(file, blob, int(id-first)); err != nil {
				return nil, fmt.Errorf("symbol decls: %w", err)
			}
			out[id] = d
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("symbol decls: %w", err)
	}
	return out, nil
}
