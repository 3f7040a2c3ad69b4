package query

import (
	"context"
	"sort"
)

// The text channels. Each reads the top candidates of one FTS5 table by
// bm25 (weighted per column; SQLite's bm25 is lower-is-better, so it is
// negated) joined to its base table, with the scope's fragment ANDed in.
const (
	chunkChannelSQL = `SELECT c.id, c.cid, c.file_id, c.path, c.start_line, c.end_line, c.header, -bm25(chunks_fts, ?, ?, ?, ?) AS sc
FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
WHERE chunks_fts MATCH ?%s
ORDER BY sc DESC, c.path, c.start_line LIMIT ?`

	symbolChannelSQL = `SELECT s.id, s.sid, s.file_id, s.path, s.start_line, s.end_line, s.kind, s.name, s.qualname, s.signature, s.doc, s.is_exported, -bm25(symbols_fts, ?, ?, ?, ?, ?) AS sc
FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid
WHERE symbols_fts MATCH ?%s
ORDER BY sc DESC, s.path, s.start_line LIMIT ?`

	fileChannelSQL = `SELECT f.id, f.path, f.lines, -bm25(files_fts, ?, ?) AS sc
FROM files_fts JOIN files f ON f.id = files_fts.rowid
WHERE files_fts MATCH ?%s
ORDER BY sc DESC, f.path LIMIT ?`
)

// fixedStatements are prepared by New: the unscoped forms of the
// statements every search uses.
var fixedStatements = []string{
	sprintf(chunkChannelSQL, ""),
	sprintf(symbolChannelSQL, ""),
	sprintf(fileChannelSQL, ""),
	sprintf(defByNameSQL, ""),
	fileKeyQuery,
	fileListQuery,
	fileDocSQL,
}

func floatArgs(ws []float64) []any {
	out := make([]any, len(ws))
	for i, w := range ws {
		out[i] = w
	}
	return out
}

// chunkChannel finds the chunks matching expr.
func (p *Planner) chunkChannel(ctx context.Context, expr string, sc *scoped, pool unitPool, limit int) (*channel, error) {
	ch := &channel{name: "blocks", weight: p.tune.WChunk}
	args := append(floatArgs(p.tune.ChunkCols), expr)
	args = append(append(args, sc.chunk.args...), limit)
	rows, err := p.query(ctx, sprintf(chunkChannelSQL, sc.chunk.sql), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		u := &unit{kind: KindBlock}
		var header string
		var score float64
		if err := rows.Scan(&u.rowid, &u.id, &u.fileID, &u.path, &u.start, &u.end, &header, &score); err != nil {
			return nil, err
		}
		u.title = blockTitle(header, u.path)
		ch.add(pool.intern(u), score)
	}
	return ch, rows.Err()
}

// symbolChannel finds the symbols matching expr.
func (p *Planner) symbolChannel(ctx context.Context, expr string, sc *scoped, pool unitPool, limit int) (*channel, error) {
	ch := &channel{name: "symbols", weight: p.tune.WSymbol}
	args := append(floatArgs(p.tune.SymbolCols), expr)
	args = append(append(args, sc.sym.args...), limit)
	rows, err := p.query(ctx, sprintf(symbolChannelSQL, sc.sym.sql), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		u, score, err := scanSymbol(rows, true)
		if err != nil {
			return nil, err
		}
		ch.add(pool.intern(u), score)
	}
	return ch, rows.Err()
}

// scanSymbol reads the columns of symbolChannelSQL (and of the definition
// statements, which have the same columns, without the score).
func scanSymbol(rows interface{ Scan(...any) error }, withScore bool) (*unit, float64, error) {
	u := &unit{kind: KindDefinition}
	var score float64
	dest := []any{&u.rowid, &u.id, &u.fileID, &u.path, &u.start, &u.end, &u.symKind, &u.name, &u.qualname, &u.signature, &u.doc, &u.exported}
	if withScore {
		dest = append(dest, &score)
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, 0, err
	}
	u.title = defTitle(u.symKind, u.qualname)
	return u, score, nil
}

// fileChannel finds the files whose path or summary match expr.
func (p *Planner) fileChannel(ctx context.Context, expr string, sc *scoped, pool unitPool, limit int) (*channel, error) {
	ch := &channel{name: "files", weight: p.tune.WFile}
	args := append(floatArgs(p.tune.FileCols), expr)
	args = append(append(args, sc.file.args...), limit)
	rows, err := p.query(ctx, sprintf(fileChannelSQL, sc.file.sql), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		u := &unit{kind: KindFile, start: 1}
		var score float64
		if err := rows.Scan(&u.rowid, &u.path, &u.end, &score); err != nil {
			return nil, err
		}
		u.fileID = u.rowid
		u.id = "f:" + u.path
		u.title = u.path
		u.end = max(u.end, 1)
		ch.add(pool.intern(u), score)
	}
	return ch, rows.Err()
}

// chunkSumChannel ranks the files of the blocks channel by the sum of
// their chunks' scores: a file with many matching blocks is more likely
// about the query than one with a single lucky block.
func chunkSumChannel(blocks *channel, weight float64, pool unitPool, files map[int64]*fileInfo) *channel {
	ch := &channel{name: "blocks_sum", weight: weight}
	sum := map[int64]float64{}
	var order []int64
	for i, u := range blocks.units {
		if _, ok := sum[u.fileID]; !ok {
			order = append(order, u.fileID)
		}
		sum[u.fileID] += blocks.scores[i]
	}
	sort.SliceStable(order, func(i, j int) bool { return sum[order[i]] > sum[order[j]] })
	for _, id := range order {
		ch.add(fileUnit(pool, files, id), sum[id])
	}
	return ch
}

// fileUnit returns the file unit of a file.
func fileUnit(pool unitPool, files map[int64]*fileInfo, id int64) *unit {
	f := files[id]
	u := &unit{kind: KindFile, rowid: id, fileID: id, start: 1}
	if f != nil {
		u.path, u.end = f.path, max(f.lines, 1)
	}
	u.id = "f:" + u.path
	u.title = u.path
	return pool.intern(u)
}
