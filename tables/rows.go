package tables

import (
	"fmt"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/fulltext"
)

// writeFile inserts the rows of p and returns its file id. id is the id
// the path already has (its old rows are cleared), or 0.
func (bw *batchWriter) writeFile(p *Prepared, id int64) (int64, error) {
	if p.err != nil {
		return 0, p.err
	}
	args := []any{p.path, p.ext, p.language, p.size, p.lines, p.hash,
		p.imports, p.exports, p.doc,
		p.parseStatus, p.parseProblem, bw.now, bw.nextFileRow}
	bw.fileWords.files = append(bw.fileWords.files, &p.fileWords)
	bw.fileWords.first = append(bw.fileWords.first, bw.nextFileRow)
	bw.nextFileRow++
	if id != 0 {
		// Keep the id: it names the file's vectors ('f' || id).
		if _, err := bw.updFile.ExecContext(bw.ctx, append(args, id)...); err != nil {
			return 0, err
		}
	} else {
		res, err := bw.insFile.ExecContext(bw.ctx, args...)
		if err != nil {
			return 0, err
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	}
	if err := bw.insertSymbols(id, p); err != nil {
		return 0, err
	}
	if err := bw.insertChunks(id, p); err != nil {
		return 0, err
	}
	// sources.decls leads with the row id of the file's first symbol,
	// known now (decls.go).
	if _, err := bw.insSource.ExecContext(bw.ctx, id, p.lists, declsBlob(bw.firstSymbol, p.decls), p.text); err != nil {
		return 0, fmt.Errorf("source: %w", err)
	}
	return id, bw.insertRefs(id, p)
}

// symbolIDs fills bw.sids with the sid (its 64 bits) of every symbol of f.
func (bw *rowBuilder) symbolIDs(f *extract.File) {
	clear(bw.occ)
	bw.sids = bw.sids[:0]
	for i := range f.Symbols {
		s := &f.Symbols[i]
		k := kindQual{s.Kind, s.Qualname}
		n := bw.occ[k]
		bw.occ[k] = n + 1
		bw.sids = append(bw.sids, symbolKey(f.Path, s.Kind, s.Qualname, n))
	}
}

// sid returns the sid of symbol index i, or "" when i is out of range
// (-1 means none).
func (bw *rowBuilder) sid(i int) string {
	if i < 0 || i >= len(bw.sids) {
		return ""
	}
	return hexID('s', bw.sids[i])
}

// sidValue returns what symbols.sid stores for symbol index i (the
// INTEGER), or nil (NULL) when i is out of range (-1 means none).
func (bw *rowBuilder) sidValue(i int) any {
	if i < 0 || i >= len(bw.sids) {
		return nil
	}
	return int64(bw.sids[i])
}

// insertSymbols writes p's symbols with consecutive ids (sources.decls
// places a symbol by its id, decls.go; the word index names them by id)
// and notes them for the symbols' word index (index). The rows go through
// a rowBuffer: the batch's last ones are written by flushRows.
func (bw *batchWriter) insertSymbols(fileID int64, p *Prepared) error {
	bw.firstSymbol = 0
	if len(p.symbols) > 0 {
		bw.firstSymbol = bw.nextSymbol
		bw.symbolWords.files = append(bw.symbolWords.files, &p.symbolWords)
		bw.symbolWords.first = append(bw.symbolWords.first, bw.nextSymbol)
	}
	for i := range p.symbols {
		s := &p.symbols[i]
		err := bw.symbols.add(bw.nextSymbol, s.sid, fileID,
			s.kind, s.name, s.qualname, s.parentSID,
			int64(s.startLine), int64(s.endLine), int64(s.startByte), int64(s.endByte),
			int64(s.exported), s.decorators, s.hash)
		if err != nil {
			return fmt.Errorf("symbols up to %s %s: %w", s.kind, s.qualname, err)
		}
		bw.nextSymbol++
	}
	return nil
}

// insertChunks writes p's chunks with consecutive ids, through a
// rowBuffer as insertSymbols, and notes them for the chunks' word index
// (index).
func (bw *batchWriter) insertChunks(fileID int64, p *Prepared) error {
	if len(p.chunks) > 0 {
		bw.chunkWords.files = append(bw.chunkWords.files, &p.chunkWords)
		bw.chunkWords.first = append(bw.chunkWords.first, bw.nextChunk)
	}
	for i := range p.chunks {
		c := &p.chunks[i]
		err := bw.chunks.add(bw.nextChunk, c.cid, fileID,
			int64(c.startLine), int64(c.endLine), int64(c.startByte), int64(c.endByte),
			c.symbolSID, c.header, c.hash)
		if err != nil {
			return fmt.Errorf("chunks up to %d-%d: %w", c.startLine, c.endLine, err)
		}
		bw.nextChunk++
	}
	return nil
}

// flushRows writes the symbol and chunk rows the batch still buffers.
func (bw *batchWriter) flushRows() error {
	if err := bw.symbols.flush(); err != nil {
		return fmt.Errorf("symbols: %w", err)
	}
	if err := bw.chunks.flush(); err != nil {
		return fmt.Errorf("chunks: %w", err)
	}
	return nil
}

// nextRowIDs sets the ids the batch's first symbol and chunk get, and the
// word row of its first file: above every one the table holds and every
// row a word segment covers, so that a row is never given twice (a word
// segment's dead rows are rows) and segments cover disjoint ranges.
func (bw *batchWriter) nextRowIDs() error {
	for _, t := range []struct {
		ix   *wordIndex
		next *int64
	}{{symbolWords, &bw.nextSymbol}, {chunkWords, &bw.nextChunk}, {fileWords, &bw.nextFileRow}} {
		q := `SELECT max((SELECT coalesce(max(` + t.ix.row + `), 0) FROM ` + t.ix.base + `), (SELECT coalesce(max(hi), 0) FROM ` + t.ix.segs() + `)) + 1`
		if err := bw.tx.QueryRowContext(bw.ctx, q).Scan(t.next); err != nil {
			return fmt.Errorf("%s ids: %w", t.ix.base, err)
		}
	}
	return nil
}

// insertRefs writes p's refs row, when it has one, and notes the keys
// that find it for flushRefKeys.
func (bw *batchWriter) insertRefs(fileID int64, p *Prepared) error {
	if p.refsN == 0 {
		return nil
	}
	if _, err := bw.insRefFile.ExecContext(bw.ctx, fileID, p.refsN, p.refs); err != nil {
		return fmt.Errorf("refs: %w", err)
	}
	for _, k := range p.refKeys {
		bw.keyEdits.add[k] = append(bw.keyEdits.add[k], fileID)
	}
	for _, k := range p.refImport {
		bw.importEdits.add[k] = append(bw.importEdits.add[k], fileID)
	}
	return nil
}

// identParts returns the space-joined, deduplicated SplitIdentifier words
// of name and idents: the ident_parts column of the word indexes.
func (bw *rowBuilder) identParts(name string, idents []string) string {
	bw.collectParts(name, idents)
	bw.words = bw.words[:0]
	for i, id := range bw.parts {
		if i > 0 {
			bw.words = append(bw.words, ' ')
		}
		bw.words = append(bw.words, bw.wordText[id]...)
	}
	return string(bw.words)
}

// identPartWords returns the words of identParts(name, idents) as ids
// (valid until the next call) and, per id, the word's tokens (fulltext.Tokenize):
// each word's tokens are kept with the word, so the word index takes the
// column without joining it into text and scanning it again. The
// column's tokens are the words' tokens in turn, as a space separates
// tokens.
func (bw *rowBuilder) identPartWords(name string, idents []string) ([]int32, [][]string) {
	bw.collectParts(name, idents)
	return bw.parts, bw.wordToks
}

// collectParts sets bw.parts to the ids of the deduplicated
// SplitIdentifier words of name and idents, in order.
func (bw *rowBuilder) collectParts(name string, idents []string) {
	bw.gen++
	if bw.gen == 0 { // wrapped: no stamp may match a live call
		clear(bw.wordGen)
		for _, e := range bw.splits {
			e.gen = 0
		}
		bw.gen = 1
	}
	// The cache is emptied between calls, never inside one: a word added
	// before the cache was emptied would get a new id and be added again
	// (a run-long cache filled mid-call; 7 of 485 words of one symbol of
	// GOROOT/src/cmd/compile came twice).
	if len(bw.splits) >= maxSplitCache {
		clear(bw.splits)
		clear(bw.wordID)
		bw.wordText, bw.wordGen, bw.wordToks = bw.wordText[:0], bw.wordGen[:0], bw.wordToks[:0]
	}
	bw.parts = bw.parts[:0]
	if name != "" {
		bw.addWords(name)
	}
	for _, id := range idents {
		bw.addWords(id)
	}
}

// addWords appends the words of ident not yet in bw.parts. Words are
// interned per rowBuilder, so that telling a word already added is a slice
// index (bw.wordGen) rather than a string hash, and an identifier seen
// before in the same call adds nothing.
func (bw *rowBuilder) addWords(ident string) {
	e, ok := bw.splits[ident]
	if !ok {
		// The cache outlives the file (a Preparer keeps it for a whole
		// run): a copy keeps the file's strings from being held by it.
		ident = strings.Clone(ident)
		parts := extract.SplitIdentifier(ident)
		e = &splitEntry{words: make([]int32, len(parts))}
		for i, w := range parts {
			id, ok := bw.wordID[w]
			if !ok {
				id = int32(len(bw.wordText))
				bw.wordID[w] = id
				bw.wordText = append(bw.wordText, w)
				bw.wordGen = append(bw.wordGen, 0)
				bw.wordToks = append(bw.wordToks, bw.tk.Tokens(w))
			}
			e.words[i] = id
		}
		bw.splits[ident] = e
	}
	if e.gen == bw.gen {
		return // its words are in already
	}
	e.gen = bw.gen
	for _, id := range e.words {
		if bw.wordGen[id] == bw.gen {
			continue
		}
		bw.wordGen[id] = bw.gen
		bw.parts = append(bw.parts, id)
	}
}

// splitEntry is an identifier's SplitIdentifier words as interned ids,
// and the identParts call that last added them.
type splitEntry struct {
	words []int32
	gen   uint32
}

// rowBuilder is the scratch space that derives rows from facts (sids,
// identifier parts, packed refs), reused from file to file. Preparer (the
// SQLite engine) and FactBuilder (others) each hold one, so both engines
// store the same rows.
type rowBuilder struct {
	sb    strings.Builder
	words []byte
	// SplitIdentifier results per identifier, their words interned
	// (wordID, wordText), and per word the identParts call (gen) that
	// last added it: the cache of identParts.
	splits   map[string]*splitEntry
	wordID   map[string]int32
	wordText []string
	wordGen  []uint32
	wordToks [][]string // per word, its tokens (fulltext.Tokenize)
	gen      uint32
	parts    []int32 // the words of the last collectParts
	tk       fulltext.Tokenizer
	sids     []uint64
	occ      map[kindQual]int
	refs     refGroups
	encl     []int
}

// groupRefs aggregates f's references per (kind, name, target), each use
// a line and the ordinal of its enclosing symbol (0: none); an identifier
// used twice on one line is one use. The groups are valid until the next
// call.
func (rb *rowBuilder) groupRefs(f *extract.File) *refGroups {
	rb.encl = enclosing(f, rb.encl)
	g := &rb.refs
	g.reset()
	for i := range f.Refs {
		r := &f.Refs[i]
		g.add(refKey{r.Kind, r.Name, r.Target}, r.StartLine, rb.encl[i]+1, r.Kind == extract.RefIdent)
	}
	return g
}

func newRowBuilder() rowBuilder {
	return rowBuilder{
		splits: make(map[string]*splitEntry),
		wordID: make(map[string]int32),
		occ:    make(map[kindQual]int),
	}
}
