package query

import (
	"context"
	"sort"

	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/fulltext"
)

// textChannels runs the bm25 channels of a planner over the index's word
// postings, pruning common terms by their counts (prune.go).
type textChannels struct {
	db   tables.Reader
	tune *Tuning
	df   dfCache // chunk counts of terms, for pruning
}

// chunkChannel finds the chunks matching q (tables.Reader.SearchChunks:
// bm25 weighted per column, the scope applied).
func (tc *textChannels) chunkChannel(ctx context.Context, q fulltext.Query, sc *scoped, pool unitPool, limit int) (*channel, error) {
	ch := &channel{name: "blocks", weight: tc.tune.WChunk}
	rows, err := tc.db.SearchChunks(ctx, q, tc.tune.ChunkCols, sc.scope, limit)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		ch.add(pool.intern(chunkUnit(r)), r.Score)
	}
	return ch, nil
}

// chunkUnit is the block unit of a chunk row.
func chunkUnit(r tables.ChunkRow) *unit {
	return &unit{kind: KindBlock, rowid: r.ID, id: r.CID, fileID: r.FileID, path: r.Path,
		start: r.StartLine, end: r.EndLine, title: blockTitle(r.Header, r.Path), terms: r.Terms}
}

// symbolChannel finds the symbols matching q.
func (tc *textChannels) symbolChannel(ctx context.Context, q fulltext.Query, sc *scoped, pool unitPool, limit int) (*channel, error) {
	ch := &channel{name: "symbols", weight: tc.tune.WSymbol}
	rows, err := tc.db.SearchSymbols(ctx, q, tc.tune.SymbolCols, sc.scope, limit)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		ch.add(pool.intern(symbolUnit(r)), r.Score)
	}
	return ch, nil
}

// symbolUnit is the definition unit of a symbol row.
func symbolUnit(r tables.SymbolRow) *unit {
	return &unit{kind: KindDefinition, rowid: r.ID, id: r.SID, fileID: r.FileID, path: r.Path,
		start: r.StartLine, end: r.EndLine, symKind: r.Kind, name: r.Name, qualname: r.Qualname,
		exported: r.Exported, decl: r.ID, title: defTitle(r.Kind, r.Qualname)}
}

// fileChannel finds the files whose path or summary match q.
func (tc *textChannels) fileChannel(ctx context.Context, q fulltext.Query, sc *scoped, pool unitPool, limit int) (*channel, error) {
	ch := &channel{name: "files", weight: tc.tune.WFile}
	rows, err := tc.db.SearchFiles(ctx, q, tc.tune.FileCols, sc.scope, limit)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		u := &unit{kind: KindFile, rowid: r.ID, fileID: r.ID, path: r.Path, start: 1, end: max(r.Lines, 1),
			id: "f:" + r.Path, title: r.Path}
		ch.add(pool.intern(u), r.Score)
	}
	return ch, nil
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
