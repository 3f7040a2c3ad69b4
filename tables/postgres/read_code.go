package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// The Reader's symbol details, references, code and vectors: the same
// answers as tables.IndexReader's (read_symbols.go, read_refs.go, read_search.go,
// read_vectors.go), over one repository.

const symbolInfoSQL = `SELECT s.sid, s.file_id, f.path, f.language, s.kind, s.name, s.qualname, s.parent_sid, s.start_line, s.end_line,
  s.start_byte, s.end_byte, s.signature, s.doc, s.is_exported, s.decorators, s.identifiers, s.calls, s.strings, s.hash
FROM symbols s JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id WHERE s.repo_id = $1 AND s.sid = $2`

// SymbolInfo returns the symbol with the given sid.
func (r *Reader) SymbolInfo(ctx context.Context, sid string) (tables.SymbolInfo, bool, error) {
	var d tables.SymbolInfo
	var decorators, identifiers, calls, strs string
	ok, err := r.conn.row(ctx, symbolInfoSQL, []any{r.conn.repo.ID, sid}, &d.SID, &d.FileID, &d.Path, &d.Language, &d.Kind, &d.Name, &d.Qualname, &d.ParentSID,
		&d.StartLine, &d.EndLine, &d.StartByte, &d.EndByte, &d.Signature, &d.Doc, &d.Exported, &decorators, &identifiers, &calls, &strs, &d.Hash)
	if !ok {
		return d, false, err
	}
	dec := DecodeText
	d.Path, d.Language, d.Kind, d.Name, d.Qualname = dec(d.Path), dec(d.Language), dec(d.Kind), dec(d.Name), dec(d.Qualname)
	d.Signature, d.Doc = dec(d.Signature), dec(d.Doc)
	d.Decorators, d.Identifiers, d.Calls, d.Strings = tables.SplitList(dec(decorators)), tables.SplitList(dec(identifiers)), tables.SplitList(dec(calls)), tables.SplitList(dec(strs))
	return d, true, nil
}

func scanSpan(rows pgx.Row, withPath bool) (tables.SymbolSpan, error) {
	var s tables.SymbolSpan
	var err error
	if withPath {
		err = rows.Scan(&s.SID, &s.Kind, &s.Qualname, &s.Path, &s.StartLine, &s.EndLine)
	} else {
		err = rows.Scan(&s.SID, &s.Kind, &s.Qualname, &s.Signature, &s.StartLine, &s.EndLine)
	}
	s.Kind, s.Qualname, s.Path, s.Signature = DecodeText(s.Kind), DecodeText(s.Qualname), DecodeText(s.Path), DecodeText(s.Signature)
	return s, err
}

// SymbolChildren returns up to 200 symbols whose parent is sid, in line
// order.
func (r *Reader) SymbolChildren(ctx context.Context, sid string) ([]tables.SymbolSpan, error) {
	a := r.conn.args()
	m := a.add(sid)
	var out []tables.SymbolSpan
	err := r.conn.query(ctx, `SELECT s.sid, s.kind, s.qualname, f.path, s.start_line, s.end_line
FROM symbols s JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id
WHERE s.repo_id = $1 AND s.file_id = (SELECT file_id FROM symbols WHERE repo_id = $1 AND sid = `+m+`) AND s.parent_sid = `+m+`
ORDER BY s.start_line, s.qualname LIMIT 200`, a, func(rows pgx.Rows) error {
		s, err := scanSpan(rows, true)
		out = append(out, s)
		return err
	})
	return out, err
}

// IndexedFile returns the content hash of the file at path ("" when the
// repository does not hold it). A store keeps no skipped files.
func (r *Reader) IndexedFile(ctx context.Context, path string) (hash, skipped string, err error) {
	if _, err := r.conn.row(ctx, `SELECT hash FROM files WHERE repo_id = $1 AND path = $2`, []any{r.conn.repo.ID, EncodeText(path)}, &hash); err != nil {
		return "", "", err
	}
	return hash, "", nil
}

// Neighbours reads a symbol or chunk with its parent and siblings, in one
// read-only transaction (one snapshot of the repository), as
// tables.IndexReader.Neighbours does.
func (r *Reader) Neighbours(ctx context.Context, id, path string, line int) (*tables.Neighbours, error) {
	tx, err := r.conn.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return nil, r.conn.wrap(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only
	repo := r.conn.repo.ID
	epath := EncodeText(path)
	if id == "" {
		err := tx.QueryRow(ctx, `SELECT sid FROM symbols WHERE repo_id = $1 AND file_id = (SELECT id FROM files WHERE repo_id = $1 AND path = $2)
AND start_line <= $3 AND end_line >= $3 ORDER BY end_line - start_line, start_line DESC, ord LIMIT 1`, repo, epath, line).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			err = tx.QueryRow(ctx, `SELECT cid FROM chunks WHERE repo_id = $1 AND file_id = (SELECT id FROM files WHERE repo_id = $1 AND path = $2)
AND start_line <= $3 AND end_line >= $3 ORDER BY end_line - start_line, ord LIMIT 1`, repo, epath, line).Scan(&id)
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, tables.ErrNoAnchor
		}
		if err != nil {
			return nil, r.conn.wrap(fmt.Errorf("%s:%d: %w", path, line, err))
		}
	}
	n := &tables.Neighbours{}
	a := &n.Anchor
	var parentSID string
	const spanSQL = `SELECT sid, kind, qualname, signature, start_line, end_line, parent_sid FROM symbols WHERE repo_id = $1 AND sid = $2`
	if id != "" && id[0] == 's' {
		err = tx.QueryRow(ctx, `SELECT s.sid, s.kind, s.qualname, s.signature, s.start_line, s.end_line, s.parent_sid, f.path, f.language, f.lines, f.hash
FROM symbols s JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id WHERE s.repo_id = $1 AND s.sid = $2`, repo, id).
			Scan(&a.SID, &a.Kind, &a.Qualname, &a.Signature, &a.StartLine, &a.EndLine, &parentSID, &n.Path, &n.Language, &n.Lines, &n.Hash)
	} else {
		var symSID string
		err = tx.QueryRow(ctx, `SELECT c.cid, c.start_line, c.end_line, c.symbol_sid, f.path, f.language, f.lines, f.hash
FROM chunks c JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id WHERE c.repo_id = $1 AND c.cid = $2`, repo, id).
			Scan(&a.SID, &a.StartLine, &a.EndLine, &symSID, &n.Path, &n.Language, &n.Lines, &n.Hash)
		a.Kind = "chunk"
		if err == nil && symSID != "" {
			err = tx.QueryRow(ctx, spanSQL, repo, symSID).Scan(&a.SID, &a.Kind, &a.Qualname, &a.Signature, &a.StartLine, &a.EndLine, &parentSID)
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, tables.ErrNoAnchor
	}
	if err != nil {
		return nil, r.conn.wrap(fmt.Errorf("%s: %w", id, err))
	}
	dec := DecodeText
	a.Kind, a.Qualname, a.Signature = dec(a.Kind), dec(a.Qualname), dec(a.Signature)
	n.Path, n.Language = dec(n.Path), dec(n.Language)
	if parentSID != "" {
		var pa tables.SymbolSpan
		var grand string
		if err := tx.QueryRow(ctx, spanSQL, repo, parentSID).Scan(&pa.SID, &pa.Kind, &pa.Qualname, &pa.Signature, &pa.StartLine, &pa.EndLine, &grand); err == nil {
			pa.Kind, pa.Qualname, pa.Signature = dec(pa.Kind), dec(pa.Qualname), dec(pa.Signature)
			n.Parent = &pa
		}
	}
	rows, err := tx.Query(ctx, `SELECT sid, kind, qualname, signature, start_line, end_line FROM symbols
WHERE repo_id = $1 AND file_id = (SELECT id FROM files WHERE repo_id = $1 AND path = $2) AND parent_sid = $3 AND sid <> $4
ORDER BY start_line, end_line DESC, ord`, repo, EncodeText(n.Path), parentSID, a.SID)
	if err != nil {
		return nil, r.conn.wrap(fmt.Errorf("%s: %w", id, err))
	}
	defer rows.Close()
	for rows.Next() {
		s, err := scanSpan(rows, false)
		if err != nil {
			return nil, r.conn.wrap(fmt.Errorf("%s: %w", id, err))
		}
		n.Siblings = append(n.Siblings, s)
	}
	if err := rows.Err(); err != nil {
		return nil, r.conn.wrap(fmt.Errorf("%s: %w", id, err))
	}
	return n, nil
}

// RefsNamed returns the references in scope to name, as tables.IndexReader's
// RefsNamed (tables.UnpackRefs applies the same rules to the rows).
func (r *Reader) RefsNamed(ctx context.Context, name string, s scope.Scope) ([]tables.RefRow, error) {
	flt := s.Filter()
	a := r.conn.args()
	lower := a.add(EncodeText(strings.ToLower(name)))
	exact := a.add(EncodeText(name))
	cond := filter(scope.Filter{PathPrefix: flt.PathPrefix, PathContains: flt.PathContains, PathNotContains: flt.PathNotContains, Extension: flt.Extension},
		scope.Files, "f", a)
	q := `SELECT r.file_id, f.path, r.kind, r.name, r.target, r.n, r.uses, false
FROM refs r JOIN files f ON f.repo_id = r.repo_id AND f.id = r.file_id
WHERE r.repo_id = $1 AND left(r.name_lower, 200) = left(` + lower + `, 200) AND r.name_lower = ` + lower + ` AND r.kind IN ('call', 'ident', 'type', 'import') AND ` + cond + `
UNION ALL
SELECT r.file_id, f.path, r.kind, r.name, r.target, r.n, r.uses, true
FROM refs r JOIN files f ON f.repo_id = r.repo_id AND f.id = r.file_id
WHERE r.repo_id = $1 AND r.kind = 'import' AND left(r.target, 200) = left(` + exact + `, 200) AND r.target = ` + exact + ` AND r.name_lower <> ` + lower + ` AND ` + cond
	var groups []tables.RefGroup
	err := r.conn.query(ctx, q, a, func(rows pgx.Rows) error {
		var g tables.RefGroup
		if err := rows.Scan(&g.FileID, &g.Path, &g.Kind, &g.Name, &g.Target, &g.N, &g.Uses, &g.ByTarget); err != nil {
			return err
		}
		g.Path, g.Kind, g.Name, g.Target = DecodeText(g.Path), DecodeText(g.Kind), DecodeText(g.Name), DecodeText(g.Target)
		groups = append(groups, g)
		return nil
	})
	if err != nil || len(groups) == 0 {
		return nil, err
	}
	// Only the symbols the uses need: each one's enclosing symbol (by
	// ordinal) and those starting on a use's line (a definition's own
	// name), a few rows a use where every symbol of every file holding
	// one was 300–1,100 rows a statement.
	ords, lines, err := tables.RefSymbolKeys(groups)
	if err != nil {
		return nil, err
	}
	of, oo := splitKeys(ords)
	lf, ll := splitKeys(lines)
	sa := r.conn.args()
	admitted := filter(flt, scope.Symbols, "s", sa)
	sq := `SELECT s.file_id, s.ord, s.name, s.qualname, s.start_line, ` + admitted + `
FROM symbols s JOIN unnest(` + sa.add(of) + `::bigint[], ` + sa.add(oo) + `::int[]) AS k(f, o) ON s.repo_id = $1 AND s.file_id = k.f AND s.ord = k.o
UNION
SELECT s.file_id, s.ord, s.name, s.qualname, s.start_line, ` + admitted + `
FROM symbols s JOIN unnest(` + sa.add(lf) + `::bigint[], ` + sa.add(ll) + `::int[]) AS k(f, l) ON s.repo_id = $1 AND s.file_id = k.f AND s.start_line = k.l`
	var syms []tables.RefSymbolAt
	err = r.conn.query(ctx, sq, sa, func(rows pgx.Rows) error {
		var y tables.RefSymbolAt
		if err := rows.Scan(&y.File, &y.Ord, &y.Name, &y.Qualname, &y.Start, &y.Admitted); err != nil {
			return err
		}
		y.Name, y.Qualname = DecodeText(y.Name), DecodeText(y.Qualname)
		syms = append(syms, y)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tables.UnpackRefsAt(groups, syms, flt.HasSymbolFilters())
}

// splitKeys splits keys into their files and numbers, as two arrays for
// unnest.
func splitKeys(keys []tables.RefKey) (files []int64, ns []int32) {
	files, ns = make([]int64, len(keys)), make([]int32, len(keys))
	for i, k := range keys {
		files[i], ns[i] = k.File, int32(k.N)
	}
	return files, ns
}

// FileDoc returns a file's doc comment and summary.
func (r *Reader) FileDoc(ctx context.Context, fileID int64) (doc, summary string, ok bool, err error) {
	ok, err = r.conn.row(ctx, `SELECT doc, summary FROM files WHERE repo_id = $1 AND id = $2`, []any{r.conn.repo.ID, fileID}, &doc, &summary)
	return DecodeText(doc), DecodeText(summary), ok, err
}

// FileLines returns lines from..to (1-based, inclusive) of a file, read
// back from its chunks; a line no chunk holds is "".
func (r *Reader) FileLines(ctx context.Context, fileID int64, from, to int) ([]string, error) {
	if to < from {
		return nil, nil
	}
	out := make([]string, to-from+1)
	have := make([]bool, len(out))
	a := r.conn.args()
	q := `SELECT start_line, end_line, content FROM chunks WHERE repo_id = $1 AND file_id = ` + a.add(fileID) +
		` AND start_line <= ` + a.add(to) + ` AND end_line >= ` + a.add(from) + ` ORDER BY start_line, end_line`
	err := r.conn.query(ctx, q, a, func(rows pgx.Rows) error {
		var s, e int
		var content string
		if err := rows.Scan(&s, &e, &content); err != nil {
			return err
		}
		for i, l := range strings.Split(DecodeText(content), "\n") {
			ln := s + i
			if ln > e || ln > to {
				break
			}
			if ln >= from && !have[ln-from] {
				out[ln-from], have[ln-from] = l, true
			}
		}
		return nil
	})
	return out, err
}

// FileID returns the id of the file at path in the repository.
func (r *Reader) FileID(ctx context.Context, path string) (int64, bool, error) {
	var id int64
	ok, err := r.conn.row(ctx, `SELECT id FROM files WHERE repo_id = $1 AND path = $2`, []any{r.conn.repo.ID, EncodeText(path)}, &id)
	return id, ok, err
}

// errStop ends a read early: the caller has what it needs.
var errStop = errors.New("stop")

// ShortScanLimit bounds the chunks read for exact text of under three
// characters, which no trigram index can narrow: the search says so.
const ShortScanLimit = 20000

// ChunksContaining calls fn with every chunk in scope that may contain
// text, ignoring case (a superset: the caller finds the occurrences), in
// (file, line) order, until fn returns false. pg_trgm's index narrows
// text of three characters or more; shorter text scans at most
// ShortScanLimit chunks.
func (r *Reader) ChunksContaining(ctx context.Context, text string, s scope.Scope, fn func(*tables.ChunkText) bool) error {
	_, err := r.conn.chunksContaining(ctx, text, s, 0, fn)
	return err
}

// ChunksContainingAtMost is ChunksContaining for the first n chunks that
// may contain text, in the order the shard finds them (no order is asked
// for, so the shard stops reading, and rechecking chunks' text, after
// n+1): complete is false when more chunks may contain it. A search over
// many repositories bounds each one's exact text with it.
func (r *Reader) ChunksContainingAtMost(ctx context.Context, text string, s scope.Scope, n int, fn func(*tables.ChunkText) bool) (complete bool, err error) {
	if n <= 0 {
		return false, fmt.Errorf("chunks containing %q: bound %d: must be positive", text, n)
	}
	return r.conn.chunksContaining(ctx, text, s, n, fn)
}

// chunksContaining reads the chunks that may contain text: all of them
// in (file, line) order when n is 0, else the first n in no order.
func (c *repoConn) chunksContaining(ctx context.Context, text string, s scope.Scope, n int, fn func(*tables.ChunkText) bool) (complete bool, err error) {
	a := c.args()
	cond := filter(s.Filter(), scope.Chunks, "c", a)
	var match string
	limit := -1
	if len([]rune(text)) >= 3 {
		like := "%" + likeEscaper.Replace(EncodeText(text)) + "%"
		match = `c.content ILIKE ` + a.add(like)
	} else {
		match = `strpos(lower(c.content), lower(` + a.add(EncodeText(text)) + `)) > 0`
		limit = ShortScanLimit
	}
	order := ` ORDER BY c.file_id, c.start_line, c.ord`
	if n > 0 {
		order = ""
		if limit < 0 || n < limit {
			limit = n + 1
		}
	}
	if limit >= 0 {
		order += fmt.Sprintf(" LIMIT %d", limit)
	}
	q := `SELECT c.file_id, c.ord, f.path, c.start_line, c.header, c.content FROM chunks c JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id
WHERE c.repo_id = $1 AND ` + match + ` AND ` + cond + order
	if n > 0 && limit == n+1 && len([]rune(text)) >= 3 {
		// The chunks through pg_trgm's bitmap, read only as far as the
		// LIMIT asks: the planner plans a CTE for all of its rows (the
		// bitmap), and the CTE runs only as far as it is read. A plain
		// LIMIT lets the planner walk the repository's chunks in order
		// instead, rechecking every one's text when the text is rarer
		// than it guessed: 0.6–0.7 s for "import kotlin" in bench/exposed,
		// against 25 ms this way.
		q = `WITH m AS MATERIALIZED (SELECT c.file_id, c.ord, c.start_line, c.header, c.content FROM chunks c WHERE c.repo_id = $1 AND ` + match + ` AND ` + cond + `)
SELECT m.file_id, m.ord, (SELECT f.path FROM files f WHERE f.repo_id = $1 AND f.id = m.file_id), m.start_line, m.header, m.content FROM m` + order
	}
	read := 0
	err = c.query(ctx, q, a, func(rows pgx.Rows) error {
		read++
		if n > 0 && read > n {
			return errStop
		}
		var c tables.ChunkText
		var ord int
		if err := rows.Scan(&c.FileID, &ord, &c.Path, &c.StartLine, &c.Header, &c.Content); err != nil {
			return err
		}
		c.ID = rowID(c.FileID, ord)
		c.Path, c.Header, c.Content = DecodeText(c.Path), DecodeText(c.Header), DecodeText(c.Content)
		if !fn(&c) {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return n == 0 || read <= n, err
}

// ChunkContents returns the text of the chunks with the given row ids.
func (r *Reader) ChunkContents(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	files, ords := splitRowIDs(ids)
	a := r.conn.args()
	q := `SELECT c.file_id, c.ord, c.content FROM chunks c JOIN unnest(` + a.add(files) + `::bigint[], ` + a.add(ords) + `::int[]) AS k(f, o)
ON c.repo_id = $1 AND c.file_id = k.f AND c.ord = k.o`
	err := r.conn.query(ctx, q, a, func(rows pgx.Rows) error {
		var f int64
		var o int
		var content string
		if err := rows.Scan(&f, &o, &content); err != nil {
			return err
		}
		out[rowID(f, o)] = DecodeText(content)
		return nil
	})
	return out, err
}

// SymbolDecls returns the signature and doc of the symbols with the
// given row ids; a symbol that is gone is missing from the map.
func (r *Reader) SymbolDecls(ctx context.Context, ids []int64) (map[int64]tables.SymbolDecl, error) {
	out := make(map[int64]tables.SymbolDecl, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	files, ords := splitRowIDs(ids)
	a := r.conn.args()
	q := `SELECT s.file_id, s.ord, s.signature, s.doc FROM symbols s JOIN unnest(` + a.add(files) + `::bigint[], ` + a.add(ords) + `::int[]) AS k(f, o)
ON s.repo_id = $1 AND s.file_id = k.f AND s.ord = k.o`
	err := r.conn.query(ctx, q, a, func(rows pgx.Rows) error {
		var f int64
		var o int
		var d tables.SymbolDecl
		if err := rows.Scan(&f, &o, &d.Signature, &d.Doc); err != nil {
			return err
		}
		out[rowID(f, o)] = tables.SymbolDecl{Signature: DecodeText(d.Signature), Doc: DecodeText(d.Doc)}
		return nil
	})
	return out, err
}

// FileLineCount returns the line count of the file with id fileID.
func (r *Reader) FileLineCount(ctx context.Context, fileID int64) (int, error) {
	var n int
	ok, err := r.conn.row(ctx, `SELECT lines FROM files WHERE repo_id = $1 AND id = $2`, []any{r.conn.repo.ID, fileID}, &n)
	if err == nil && !ok {
		err = r.conn.wrap(pgx.ErrNoRows)
	}
	return n, err
}

// splitRowIDs splits row ids into the file ids and ordinals that key the
// rows, as two arrays for unnest.
func splitRowIDs(ids []int64) (files []int64, ords []int32) {
	files = make([]int64, len(ids))
	ords = make([]int32, len(ids))
	for i, id := range ids {
		f, o := splitRowID(id)
		files[i], ords[i] = f, int32(o)
	}
	return files, ords
}
