package tables

import (
	"fmt"
	"strings"

	"github.com/viberag/viberag/extract"
)

// writeFile inserts the rows of f and returns its file id. id is the id
// the path already has (its old rows are cleared), or 0.
func (bw *batchWriter) writeFile(f *extract.File, id int64) (int64, error) {
	args := []any{f.Path, f.Ext, f.Language, f.Size, f.Lines, Hex(f.Hash),
		joinPlain(f.Imports), joinPlain(f.Exports), f.Doc, f.Summary,
		f.ParseStatus, f.ParseProblem, bw.now}
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
	bw.lists.reset()
	if err := bw.insertSymbols(id, f); err != nil {
		return 0, err
	}
	if err := bw.insertChunks(id, f); err != nil {
		return 0, err
	}
	if err := bw.insertSource(id, f); err != nil {
		return 0, err
	}
	return id, bw.insertRefs(id, f)
}

// insertSource writes f's text and the lists gathered by insertSymbols
// and insertChunks to sources.
func (bw *batchWriter) insertSource(fileID int64, f *extract.File) error {
	var err error
	if bw.text, err = fileText(f, bw.text); err != nil {
		return err
	}
	lists, err := bw.zip.deflate(bw.lists.b)
	if err != nil {
		return fmt.Errorf("compress lists: %w", err)
	}
	lists = append([]byte(nil), lists...) // the compressor reuses its buffer
	text, err := bw.zip.deflate(bw.text)
	if err != nil {
		return fmt.Errorf("compress text: %w", err)
	}
	if _, err := bw.insSource.ExecContext(bw.ctx, fileID, lists, text); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	return nil
}

// symbolIDs fills bw.sids with the sid of every symbol of f.
func (bw *rowBuilder) symbolIDs(f *extract.File) {
	clear(bw.occ)
	bw.sids = bw.sids[:0]
	for i := range f.Symbols {
		s := &f.Symbols[i]
		k := kindQual{s.Kind, s.Qualname}
		n := bw.occ[k]
		bw.occ[k] = n + 1
		bw.sids = append(bw.sids, SymbolID(f.Path, s.Kind, s.Qualname, n))
	}
}

// sid returns the sid of symbol index i, or "" when i is out of range
// (-1 means none).
func (bw *rowBuilder) sid(i int) string {
	if i < 0 || i >= len(bw.sids) {
		return ""
	}
	return bw.sids[i]
}

func (bw *batchWriter) insertSymbols(fileID int64, f *extract.File) error {
	bw.symbolIDs(f)
	a := bw.symArgs
	for i := range f.Symbols {
		s := &f.Symbols[i]
		exported := 0
		if s.Exported {
			exported = 1
		}
		a[0], a[1] = bw.sids[i], fileID
		a[2], a[3], a[4], a[5] = s.Kind, s.Name, s.Qualname, bw.sid(s.Parent)
		a[6], a[7], a[8], a[9] = s.StartLine, s.EndLine, s.StartByte, s.EndByte
		a[10], a[11], a[12] = s.Signature, s.Doc, exported
		a[13] = joinList(&bw.sb, s.Decorators)
		a[14] = Hex(s.Hash)
		res, err := bw.insSymbol.ExecContext(bw.ctx, a...)
		if err != nil {
			return fmt.Errorf("symbol %s %s: %w", s.Kind, s.Qualname, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		bw.symbolFTS = append(bw.symbolFTS, symbolFTSRow{id, s.Name, s.Qualname, s.Signature, s.Doc, bw.identParts(s.Name, s.Identifiers)})
		bw.lists.add(s.Identifiers)
		bw.lists.add(s.Calls)
		bw.lists.add(s.Strings)
	}
	return nil
}

func (bw *batchWriter) insertChunks(fileID int64, f *extract.File) error {
	a := bw.chkArgs
	var prev [2]int
	for i := range f.Chunks {
		c := &f.Chunks[i]
		// Two chunks over the same lines would share a cid; they would
		// also hold the same text, so the second adds nothing.
		if i > 0 && c.StartLine == prev[0] && c.EndLine == prev[1] {
			continue
		}
		prev = [2]int{c.StartLine, c.EndLine}
		a[0], a[1] = ChunkID(f.Path, c.StartLine, c.EndLine), fileID
		a[2], a[3], a[4], a[5] = c.StartLine, c.EndLine, c.StartByte, c.EndByte
		a[6], a[7], a[8] = bw.sid(c.Symbol), c.Header, Hex(c.Hash)
		res, err := bw.insChunk.ExecContext(bw.ctx, a...)
		if err != nil {
			return fmt.Errorf("chunk %d-%d: %w", c.StartLine, c.EndLine, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		bw.chunkFTS = append(bw.chunkFTS, chunkFTSRow{id, c.Header, c.Text, bw.identParts("", c.Identifiers), joinList(&bw.sb, c.Strings)})
		bw.lists.add(c.Identifiers)
	}
	return nil
}

// insertRefs writes f's references aggregated per (kind, name, target),
// their uses packed, as f's one refs row, and notes the keys that find it
// (flushRefKeys): its lower-cased names (ref_keys) and imported names
// (ref_imports; see schema.sql, refs). String literals are left out: symbols, chunks and
// chunks_fts hold them, and no reader looks them up.
func (bw *batchWriter) insertRefs(fileID int64, f *extract.File) error {
	g := bw.groupRefs(f)
	bw.refEnc.reset()
	clear(bw.refKeys)
	clear(bw.refImports)
	n := 0
	for _, grp := range g.order {
		kind := refKindCode(grp.key.kind)
		if kind == 0 {
			continue
		}
		bw.refEnc.add(int64(kind), grp.key.name, grp.key.target, grp.uses)
		n += len(grp.uses)
		bw.refKeys[refNameKey(grp.key.name)] = struct{}{}
		if kind == refKindImport && grp.key.target != "" {
			bw.refImports[grp.key.target] = struct{}{}
		}
	}
	if n == 0 {
		return nil
	}
	bw.refBlob = bw.refEnc.appendTo(bw.refBlob[:0])
	blob, err := bw.zip.deflate(bw.refBlob)
	if err != nil {
		return fmt.Errorf("compress refs: %w", err)
	}
	if _, err := bw.insRefFile.ExecContext(bw.ctx, fileID, n, blob); err != nil {
		return fmt.Errorf("refs: %w", err)
	}
	for k := range bw.refKeys {
		bw.keyEdits.add[k] = append(bw.keyEdits.add[k], fileID)
	}
	for k := range bw.refImports {
		bw.importEdits.add[k] = append(bw.importEdits.add[k], fileID)
	}
	return nil
}

// identParts returns the space-joined, deduplicated SplitIdentifier words
// of name and idents: the ident_parts column of symbols_fts and chunks_fts.
func (bw *rowBuilder) identParts(name string, idents []string) string {
	bw.gen++
	if bw.gen == 0 { // wrapped: no stamp may match a live call
		clear(bw.wordGen)
		for _, e := range bw.splits {
			e.gen = 0
		}
		bw.gen = 1
	}
	bw.words = bw.words[:0]
	if name != "" {
		bw.addWords(name)
	}
	for _, id := range idents {
		bw.addWords(id)
	}
	return string(bw.words)
}

// addWords appends the words of ident not yet in bw.words. Words are
// interned per batch, so that telling a word already added is a slice
// index (bw.wordGen) rather than a string hash, and an identifier seen
// before in the same call adds nothing.
func (bw *rowBuilder) addWords(ident string) {
	e, ok := bw.splits[ident]
	if !ok {
		if len(bw.splits) >= maxSplitCache {
			clear(bw.splits)
			clear(bw.wordID)
			bw.wordText, bw.wordGen = bw.wordText[:0], bw.wordGen[:0]
		}
		parts := extract.SplitIdentifier(ident)
		e = &splitEntry{words: make([]int32, len(parts))}
		for i, w := range parts {
			id, ok := bw.wordID[w]
			if !ok {
				id = int32(len(bw.wordText))
				bw.wordID[w] = id
				bw.wordText = append(bw.wordText, w)
				bw.wordGen = append(bw.wordGen, 0)
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
		if len(bw.words) > 0 {
			bw.words = append(bw.words, ' ')
		}
		bw.words = append(bw.words, bw.wordText[id]...)
	}
}

// splitEntry is an identifier's SplitIdentifier words as interned ids,
// and the identParts call that last added them.
type splitEntry struct {
	words []int32
	gen   uint32
}

// rowBuilder is the scratch space that derives rows from facts (sids,
// identifier parts, packed refs), reused from file to file. The SQLite
// writer embeds it and FactBuilder exposes it, so both engines store the
// same rows.
type rowBuilder struct {
	sb    strings.Builder
	words []byte
	// SplitIdentifier results per identifier, their words interned
	// (wordID, wordText), and per word the identParts call (gen) that
	// last added it: the per-batch cache of identParts.
	splits   map[string]*splitEntry
	wordID   map[string]int32
	wordText []string
	wordGen  []uint32
	gen      uint32
	sids     []string
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
