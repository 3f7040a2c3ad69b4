package tables

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/postings"
)

// A Write runs on the one connection that may write, so whatever it does
// besides executing statements holds up every file behind it. Prepare does
// that part ahead, for one file at a time and on any goroutine: the sids
// and cids, the list columns, the rows of the word indexes tokenized and
// grouped per term (words.go), the sources lists and text compressed, the refs grouped,
// packed and compressed with the keys that find them, and the file's
// trigrams. WritePrepared then only binds those values to statements
// (and the ids the rows get). An index run prepares each file in the
// worker that extracted it (package indexer), beside the parsers.

// Prepared is one file's rows as WritePrepared stores them, derived from
// its extracted facts by a Preparer. It keeps none of the extracted facts
// it does not store (references, identifier and call lists), so the
// facts may go once it is made.
type Prepared struct {
	path, ext, language       string
	size                      int64
	lines                     int
	hash                      string
	imports, exports          string
	doc                       string
	parseStatus, parseProblem string

	symbols []preparedSymbol
	chunks  []preparedChunk

	lists, text []byte // sources, compressed
	decls       []byte // sources.decls less the first symbol's id (packDeclBlocks)

	refsN     int    // uses in refs; 0: the file has no refs row
	refs      []byte // refs.groups, compressed
	refKeys   []string
	refImport []string

	trigram  bool     // trigrams were computed
	trigrams []uint32 // the file's distinct trigrams (postings.TrigramSet)

	// The rows of the word indexes (words.go), tokenized.
	symbolWords, chunkWords, fileWords postings.File

	// err is a fact that cannot be stored (chunks that leave a gap);
	// WritePrepared fails the batch with it, as Write always has.
	err error
}

// preparedSymbol is a symbols row without its file id.
type preparedSymbol struct {
	sid                                    int64 // the 64 bits its hex spells
	parentSID                              any   // int64, or nil (NULL) at top level
	kind, name, qualname                   string
	startLine, endLine, startByte, endByte int
	exported                               int
	decorators                             string
	hash                                   int64
}

// preparedChunk is a chunks row without its file id.
type preparedChunk struct {
	cid                                    int64
	startLine, endLine, startByte, endByte int
	symbolSID                              any // int64, or nil (NULL) for none
	header                                 string
	hash                                   int64
}

// Path returns the path of the prepared file.
func (p *Prepared) Path() string { return p.path }

// Bytes estimates the heap p holds: its strings (the chunk texts share
// the file's text), its compressed blobs, its trigrams and a per-row cost.
// A caller that bounds what waits for the writer counts this.
func (p *Prepared) Bytes() int64 {
	n := int64(256) + p.size + int64(len(p.lists)+len(p.decls)+len(p.text)+len(p.refs)) + 4*int64(len(p.trigrams)) +
		int64(len(p.imports)+len(p.exports)+len(p.doc))
	for _, k := range p.refKeys {
		n += 16 + int64(len(k))
	}
	for _, k := range p.refImport {
		n += 16 + int64(len(k))
	}
	for i := range p.symbols {
		n += 200 + int64(len(p.symbols[i].decorators))
	}
	n += 160 * int64(len(p.chunks))
	return n + p.symbolWords.Bytes() + p.chunkWords.Bytes() + p.fileWords.Bytes()
}

// Preparer derives Prepared files, reusing its scratch space (identifier
// splits, compressor, trigram set, tokenizer) from file to file. It is not safe for
// concurrent use: give each goroutine its own.
type Preparer struct {
	rb      rowBuilder
	zip     compressor
	lists   listsBuilder
	decls   listsBuilder
	text    []byte
	refEnc  refsEncoder
	refBlob []byte
	keys    map[string]struct{}
	imports map[string]struct{}
	trigram bool
	tri     *postings.TrigramSet
	words   postings.Builder
	cols    []postings.Col // a row's columns for words
}

// NewPreparer returns a Preparer of files for db: it computes trigrams
// when db maintains the trigram index, and compresses at the level of
// such an index or a small tree's (compressedLevel).
func (wr *Writer) NewPreparer() *Preparer { return newPreparer(wr.db.trigram.Load()) }

func newPreparer(trigram bool) *Preparer {
	return &Preparer{
		rb:      newRowBuilder(),
		keys:    map[string]struct{}{},
		zip:     compressor{small: !trigram},
		imports: map[string]struct{}{},
		trigram: trigram,
	}
}

// Prepare derives the rows of f. A fact that cannot be stored is not an
// error here: WritePrepared reports it, failing the batch that holds f.
func (pr *Preparer) Prepare(f *extract.File) *Prepared {
	p := &Prepared{
		path: f.Path, ext: f.Ext, language: f.Language, size: f.Size, lines: f.Lines, hash: Hex(f.Hash),
		imports: joinPlain(f.Imports), exports: joinPlain(f.Exports), doc: f.Doc,
		parseStatus: f.ParseStatus, parseProblem: f.ParseProblem,
		trigram: pr.trigram,
	}
	rb := &pr.rb
	pr.lists.reset()
	pr.decls.reset()
	rb.symbolIDs(f)
	pr.words.Reset()
	p.symbols = make([]preparedSymbol, len(f.Symbols))
	for i := range f.Symbols {
		s := &f.Symbols[i]
		exported := 0
		if s.Exported {
			exported = 1
		}
		p.symbols[i] = preparedSymbol{
			sid: int64(rb.sids[i]), kind: s.Kind, name: s.Name, qualname: s.Qualname, parentSID: rb.sidValue(s.Parent),
			startLine: s.StartLine, endLine: s.EndLine, startByte: s.StartByte, endByte: s.EndByte,
			exported: exported, decorators: joinList(&rb.sb, s.Decorators), hash: int64(s.Hash),
		}
		words, toks := rb.identPartWords(s.Name, s.Identifiers)
		pr.cols = append(pr.cols[:0], postings.Col{Text: s.Name}, postings.Col{Text: s.Qualname}, postings.Col{Text: s.Signature}, postings.Col{Text: s.Doc},
			postings.Col{Words: words, WordToks: toks})
		pr.words.AddCols(pr.cols)
		pr.lists.add(s.Identifiers)
		pr.lists.add(s.Calls)
		pr.lists.add(s.Strings)
		pr.decls.addText(s.Signature)
		pr.decls.addText(s.Doc)
	}
	p.symbolWords = pr.words.Finish()
	pr.words.Reset()
	p.chunks = make([]preparedChunk, 0, len(f.Chunks))
	for i := range f.Chunks {
		c := &f.Chunks[i]
		if repeatsLines(f.Chunks, i) {
			continue
		}
		p.chunks = append(p.chunks, preparedChunk{
			cid:       int64(chunkKey(f.Path, c.StartLine, c.EndLine)),
			startLine: c.StartLine, endLine: c.EndLine, startByte: c.StartByte, endByte: c.EndByte,
			symbolSID: rb.sidValue(c.Symbol), header: c.Header, hash: int64(c.Hash),
		})
		words, toks := rb.identPartWords("", c.Identifiers)
		pr.cols = append(pr.cols[:0], postings.Col{Text: c.Header}, postings.Col{Text: c.Text},
			postings.Col{Words: words, WordToks: toks}, postings.Col{Text: joinList(&rb.sb, c.Strings)})
		pr.words.AddCols(pr.cols)
		pr.lists.add(c.Identifiers)
	}
	p.chunkWords = pr.words.Finish()
	pr.words.Reset()
	pr.words.AddRow(p.path, fileSummary(p.path, p.doc, p.exports, p.imports))
	p.fileWords = pr.words.Finish()
	if p.err = pr.source(p, f); p.err != nil {
		return p
	}
	p.err = pr.refs(p, f)
	return p
}

// source compresses f's text and the lists gathered by Prepare, and
// finds the text's trigrams.
func (pr *Preparer) source(p *Prepared, f *extract.File) error {
	var err error
	if pr.text, err = fileText(f, pr.text); err != nil {
		return err
	}
	lists, err := pr.zip.compress(pr.lists.b)
	if err != nil {
		return fmt.Errorf("compress lists: %w", err)
	}
	p.lists = bytes.Clone(lists) // the compressor reuses its buffer
	if p.decls, err = packDeclBlocks(&pr.zip, pr.decls.b); err != nil {
		return err
	}
	text, err := pr.zip.compress(pr.text)
	if err != nil {
		return fmt.Errorf("compress text: %w", err)
	}
	p.text = bytes.Clone(text)
	if pr.trigram {
		if pr.tri == nil {
			pr.tri = postings.NewTrigramSet()
		}
		p.trigrams = slices.Clone(pr.tri.Of(pr.text))
	}
	return nil
}

// refs packs f's references aggregated per (kind, name, target) as its
// refs row, and lists the keys that find it: its lower-cased names
// (ref_keys) and imported names (ref_imports; see schema.sql, refs).
// String literals are left out: the word indexes hold them,
// and no reader looks them up.
func (pr *Preparer) refs(p *Prepared, f *extract.File) error {
	g := pr.rb.groupRefs(f)
	pr.refEnc.reset()
	clear(pr.keys)
	clear(pr.imports)
	n := 0
	for _, grp := range g.order {
		kind := refKindCode(grp.key.kind)
		if kind == 0 {
			continue
		}
		pr.refEnc.add(int64(kind), grp.key.name, grp.key.target, grp.uses)
		n += len(grp.uses)
		if k := refNameKey(grp.key.name); !hasKey(pr.keys, k) {
			pr.keys[k] = struct{}{}
			p.refKeys = append(p.refKeys, k)
		}
		if kind == refKindImport && grp.key.target != "" && !hasKey(pr.imports, grp.key.target) {
			pr.imports[grp.key.target] = struct{}{}
			p.refImport = append(p.refImport, grp.key.target)
		}
	}
	if n == 0 {
		p.refKeys, p.refImport = nil, nil
		return nil
	}
	pr.refBlob = pr.refEnc.appendTo(pr.refBlob[:0])
	blob, err := pr.zip.compress(pr.refBlob)
	if err != nil {
		return fmt.Errorf("compress refs: %w", err)
	}
	p.refsN, p.refs = n, bytes.Clone(blob)
	return nil
}

func hasKey(m map[string]struct{}, k string) bool {
	_, ok := m[k]
	return ok
}

// fileSummary spells a file's summary as the view files_summary does from
// its row (path, doc, and the '\n'-joined exports and imports): the text
// of the file word index's summary column.
func fileSummary(path, doc, exports, imports string) string {
	var b strings.Builder
	b.WriteString(path)
	if doc != "" {
		b.WriteString("\n" + doc)
	}
	if exports != "" {
		b.WriteString("\nexports: " + strings.ReplaceAll(exports, "\n", " "))
	}
	if imports != "" {
		b.WriteString("\nimports: " + strings.ReplaceAll(imports, "\n", " "))
	}
	return b.String()
}
