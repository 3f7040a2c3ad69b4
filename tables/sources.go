package tables

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/viberag/viberag/extract"
)

// The sources table (schema.sql) holds each file's text and name lists
// once, compressed. This file has the codec; the readers that need text
// or lists (chunk contents, file lines, exact search, symbol details,
// similar code, embedding inputs) decode a file's row here.
//
// Every compressed blob of the index (sources.text, sources.lists, each
// block of sources.decls, refs.groups) is one Zstandard frame (RFC 8878)
// without a checksum, written by github.com/klauspost/compress/zstd's
// EncodeAll and read by its DecodeAll (ADR 17). On the 132 MB of raw
// blobs of a GOROOT/src index (BenchmarkBlobCodecs), klauspost's DEFLATE
// at its default level compressed 3.25x at 8.6 ms of CPU per MB
// and decompressed at 4.5 ms/MB; zstd's SpeedFastest compresses 2.93x
// (1.11 times the bytes) at 6.0 ms/MB and decompresses at 1.8 ms/MB,
// and SpeedBetterCompression 3.20x at 14.9 ms/MB (SpeedDefault, 1.04
// times DEFLATE's bytes, cost what DEFLATE did). A cold index of
// GOROOT/src compresses about 130 MB, so SpeedFastest saves it about a
// third of a CPU second of some 15 (paired cold runs: 3 to 6 %), for
// 4.5 MB more of blobs (its index: 2.29 to 2.36 times the source).
//
// Zstandard's frames cost more than DEFLATE's on small blobs, and small
// trees' indexes are close to three times their source: on
// the dev split SpeedFastest took sinatra's index from 2.93 to 3.03
// times its source, SpeedDefault to 2.95, and SpeedBetterCompression
// kept 2.93 (cats: 2.87; 2.97, 2.93, 2.90). So an index with the trigram
// index (a tree over SmallTreeBytes) compresses at SpeedFastest, and a
// small tree's at SpeedBetterCompression, where it costs a few tens of
// milliseconds. Readers decode both alike.

// compressedLevel returns the zstd level of the blobs of an index that
// keeps its trigram index when trigram is set (a large tree's).
func compressedLevel(trigram bool) zstd.EncoderLevel {
	if trigram {
		return zstd.SpeedFastest
	}
	return zstd.SpeedBetterCompression
}

// maxDecompressedBytes bounds what one blob may decompress to: far above
// any blob the writer makes (files are at most fileset.MaxMaxFileSize),
// so that a damaged frame header cannot ask for more. DecodeAll
// allocates no more than its input can decode to before it checks.
const maxDecompressedBytes = 1 << 30

// encoderWindow is the window of a compressor's encoder: a blob is one
// file's (at most fileset.DefaultMaxFileSize unless configured), and
// the levels' own windows (4 and 8 MiB) made each worker's encoder keep
// a history buffer of twice that once it met a blob over 128 KiB: a cold
// index of GOROOT/src/net peaked 20 MB higher than with DEFLATE.
const encoderWindow = 1 << 20

// listsPerSymbol is the number of lists sources.lists holds per symbol:
// identifiers, calls, strings.
const listsPerSymbol = 3

// compressor compresses blobs, reusing its encoder's state and its
// buffer from blob to blob. Its encoder has concurrency 1 and is used
// only through EncodeAll, which starts no goroutine.
type compressor struct {
	small bool // compress at compressedLevel(false)
	enc   *zstd.Encoder
	buf   []byte
}

// compress returns the compressed form of p; the result is valid until
// the next call.
func (c *compressor) compress(p []byte) ([]byte, error) {
	if c.enc == nil {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(compressedLevel(!c.small)),
			zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false),
			zstd.WithWindowSize(encoderWindow), zstd.WithLowerEncoderMem(true))
		if err != nil {
			return nil, err
		}
		c.enc = enc
	}
	c.buf = c.enc.EncodeAll(p, c.buf[:0])
	return c.buf, nil
}

// decompressor decompresses blobs, reusing its decoder and buffer. Its
// decoder has concurrency 1 and is used only through DecodeAll, which
// starts no goroutine, so one dropped without Close leaks nothing.
type decompressor struct {
	d   *zstd.Decoder
	buf []byte
}

// errEmptyBlob is returned for a blob of no bytes: every frame the
// writer makes has a header, but DecodeAll reads no frames as no bytes.
var errEmptyBlob = errors.New("empty blob")

// decode decompresses b, appending to dst.
func (z *decompressor) decode(b, dst []byte) ([]byte, error) {
	if z.d == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecompressedBytes))
		if err != nil {
			return nil, err
		}
		z.d = d
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: sources: %w", ErrDamaged, errEmptyBlob)
	}
	out, err := z.d.DecodeAll(b, dst)
	if err != nil {
		return nil, fmt.Errorf("%w: sources: %w", ErrDamaged, err)
	}
	return out, nil
}

// decompress decompresses b; the result is valid until the next call.
func (z *decompressor) decompress(b []byte) ([]byte, error) {
	out, err := z.decode(b, z.buf[:0])
	if err != nil {
		return nil, err
	}
	z.buf = out
	return out, nil
}

// decompressString decompresses b into a new string, without the copy
// that converting decompress's bytes would make: DecodeAll decodes into
// a new slice of the size the frame states, which nothing else holds.
func (z *decompressor) decompressString(b []byte) (string, error) {
	out, err := z.decode(b, nil)
	if err != nil || len(out) == 0 {
		return "", err
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), nil
}

// fileText rebuilds f's text from its chunks, which cover every line
// (extract.Chunk): the bytes the index stores for the file. Chunks may
// overlap (line windows do) but must not leave a gap. buf is reused.
func fileText(f *extract.File, buf []byte) ([]byte, error) {
	order := make([]int, len(f.Chunks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return f.Chunks[a].StartByte - f.Chunks[b].StartByte })
	buf = buf[:0]
	for _, i := range order {
		c := &f.Chunks[i]
		if c.EndByte-c.StartByte != len(c.Text) || c.StartByte < 0 {
			return nil, fmt.Errorf("chunk %d-%d: bytes [%d, %d) but %d bytes of text", c.StartLine, c.EndLine, c.StartByte, c.EndByte, len(c.Text))
		}
		if c.StartByte > len(buf) {
			return nil, fmt.Errorf("chunk %d-%d starts at byte %d, after a gap from byte %d that no chunk covers", c.StartLine, c.EndLine, c.StartByte, len(buf))
		}
		if c.EndByte > len(buf) {
			buf = append(buf, c.Text[len(buf)-c.StartByte:]...)
		}
	}
	return buf, nil
}

// listsBuilder encodes sources.lists.
type listsBuilder struct{ b []byte }

func (l *listsBuilder) reset() { l.b = l.b[:0] }

// add appends one list: uvarint(length) and the items '\n'-joined, a '\n'
// inside an item written as a space (as in a list column).
func (l *listsBuilder) add(items []string) {
	n := 0
	for _, s := range items {
		if s != "" {
			n += len(s) + 1
		}
	}
	if n > 0 {
		n-- // no '\n' after the last item
	}
	l.b = binary.AppendUvarint(l.b, uint64(n))
	first := true
	for _, s := range items {
		if s == "" {
			continue
		}
		if !first {
			l.b = append(l.b, '\n')
		}
		first = false
		start := len(l.b)
		l.b = append(l.b, s...)
		for i := start; i < len(l.b); i++ {
			if l.b[i] == '\n' {
				l.b[i] = ' '
			}
		}
	}
}

// addText appends one text of sources.decls: uvarint(length) and its
// bytes as they are.
func (l *listsBuilder) addText(s string) {
	l.b = binary.AppendUvarint(l.b, uint64(len(s)))
	l.b = append(l.b, s...)
}

// errLists is returned for a lists blob that does not decode.
var errLists = errors.New("sources.lists does not decode")

// fileLists is a file's decoded sources.lists: the lists' bounds, and the
// number of symbols of the file (the chunks' lists follow the symbols').
type fileLists struct {
	b       []byte
	bounds  []int // list i is b[bounds[2i]:bounds[2i+1]]
	symbols int
}

func parseLists(b []byte, symbols int) (*fileLists, error) {
	l := &fileLists{b: b, symbols: symbols}
	for off := 0; off < len(b); {
		n, k := binary.Uvarint(b[off:])
		if k <= 0 || uint64(len(b)-off-k) < n {
			return nil, fmt.Errorf("%w: %w", ErrDamaged, errLists)
		}
		off += k
		l.bounds = append(l.bounds, off, off+int(n))
		off += int(n)
	}
	return l, nil
}

// text returns entry number i as it was stored (sources.decls entries
// are texts, not '\n'-joined lists).
func (l *fileLists) text(i int) (string, error) {
	if i < 0 || 2*i+1 >= len(l.bounds) {
		return "", fmt.Errorf("%w: %w: no entry %d of %d", ErrDamaged, errLists, i, len(l.bounds)/2)
	}
	return string(l.b[l.bounds[2*i]:l.bounds[2*i+1]]), nil
}

// list returns list number i.
func (l *fileLists) list(i int) ([]string, error) {
	if i < 0 || 2*i+1 >= len(l.bounds) {
		return nil, fmt.Errorf("%w: %w: no list %d of %d", ErrDamaged, errLists, i, len(l.bounds)/2)
	}
	s := string(l.b[l.bounds[2*i]:l.bounds[2*i+1]])
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

// sourceCache reads and decodes files' sources inside one read
// transaction, so that they agree with the rows read beside them. It keeps
// the decoded rows of up to maxCachedSources files.
type sourceCache struct {
	ctx    context.Context
	rd     *IndexReader
	tx     *sql.Tx
	texts  map[int64]string
	lists  map[int64]*fileLists
	decls  map[int64][]byte // sources.decls blobs, as stored
	declsR declsReader
	// symbolIDs are the symbol ids of files, ascending (declOf).
	symbolIDs map[int64][]int64
	z         *decompressor // from the reader's codecs, returned when the snapshot ends
	hits      *[][]tokenHit // the word views' lists (tokenHitLists), returned when it ends
}

// decompressor returns the cache's decompressor, taking one from the
// reader's codecs on first use.
func (c *sourceCache) decompressor() *decompressor {
	if c.z == nil {
		c.z = c.rd.codecs.decompressor()
	}
	return c.z
}

// codecs keeps the decoders searches use, across searches: one made per
// search made its decoder and grew its buffer again each time.
type codecs struct {
	decompressors sync.Pool // *decompressor
	decls         sync.Pool // *declsReader, for SymbolDecls
}

// decompressor returns a decompressor from the pool, or a new one.
func (p *codecs) decompressor() *decompressor {
	if z, ok := p.decompressors.Get().(*decompressor); ok {
		return z
	}
	return &decompressor{}
}

// putDecompressor returns z to the pool, unless its buffer grew past
// maxPooledDecompressorBytes.
func (p *codecs) putDecompressor(z *decompressor) {
	if cap(z.buf) <= maxPooledDecompressorBytes {
		p.decompressors.Put(z)
	}
}

// declsReader returns a reader from the pool: a new decoder costs more
// than decompressing a block (DEFLATE's allocated and cleared a 32 KiB
// window).
func (p *codecs) declsReader() *declsReader {
	if r, ok := p.decls.Get().(*declsReader); ok {
		return r
	}
	return &declsReader{}
}

// putDeclsReader returns r to the pool.
func (p *codecs) putDeclsReader(r *declsReader) { p.decls.Put(r) }

// maxPooledDecompressorBytes bounds the buffer of a decompressor kept for
// later searches: one that decompressed a huge file gives its memory back.
const maxPooledDecompressorBytes = 4 << 20

// maxCachedSources bounds a sourceCache: a scan of every chunk reads
// every file once, in order, and needs only the current one.
const maxCachedSources = 64

const (
	sourceTextSQL   = `SELECT text FROM sources WHERE id = ?`
	sourceListsSQL  = `SELECT lists, (SELECT count(*) FROM symbols WHERE file_id = ?1) FROM sources WHERE id = ?1`
	sourcesListsSQL = `SELECT id, lists, (SELECT count(*) FROM symbols WHERE file_id = sources.id) FROM sources
WHERE id IN (SELECT value FROM json_each(?))`
	sourcesDeclsSQL = `SELECT id, decls FROM sources WHERE id IN (SELECT value FROM json_each(?))`
)

// snapshot runs fn in a read-only transaction: every statement of fn sees
// one state of the index. fn runs the statements it names in queries (and
// those of sourceCache) through the DB's prepared statements, which are
// prepared before the transaction begins: preparing one inside it would
// need a second connection of the read pool while the transaction holds
// one, and readers doing so at once would wait for each other for ever.
func (rd *IndexReader) snapshot(ctx context.Context, queries []string, fn func(c *sourceCache) error) error {
	for _, q := range slices.Concat(queries, []string{sourceTextSQL, sourceListsSQL, sourcesListsSQL, sourcesDeclsSQL, symbolIDsSQL}) {
		if _, err := rd.stmts.prepare(ctx, q); err != nil {
			return err
		}
	}
	tx, err := rd.db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	c := &sourceCache{ctx: ctx, rd: rd, tx: tx, texts: map[int64]string{}, lists: map[int64]*fileLists{}, decls: map[int64][]byte{}}
	defer func() {
		if c.z != nil {
			rd.codecs.putDecompressor(c.z)
		}
		rd.words.putHits(c.hits)
	}()
	return fn(c)
}

// cached returns the DB's prepared statement for q bound to the
// transaction, or nil when q is not prepared (the cache is full).
func (c *sourceCache) cached(q string) *sql.Stmt {
	s := c.rd.stmts.prepared(q)
	if s == nil {
		return nil
	}
	return c.tx.StmtContext(c.ctx, s)
}

// query runs q in the transaction.
func (c *sourceCache) query(q string, args ...any) (*sql.Rows, error) {
	if s := c.cached(q); s != nil {
		return s.QueryContext(c.ctx, args...)
	}
	return c.tx.QueryContext(c.ctx, q, args...)
}

func (c *sourceCache) queryRow(q string, args ...any) *sql.Row {
	if s := c.cached(q); s != nil {
		return s.QueryRowContext(c.ctx, args...)
	}
	return c.tx.QueryRowContext(c.ctx, q, args...)
}

// textOf returns the text of file id; ok is false when it has none (the
// file is gone). A caller that knows the file's content hash (files.hash,
// read in this transaction; "" when not) is served a text the DB keeps
// for that hash without reading the blob.
func (c *sourceCache) textOf(id int64, hash string) (text string, ok bool, err error) {
	if t, ok := c.texts[id]; ok {
		return t, true, nil
	}
	if len(c.texts) >= maxCachedSources {
		clear(c.texts)
	}
	if t, ok := c.rd.texts.getByHash(id, hash); ok {
		c.texts[id] = t
		return t, true, nil
	}
	var blob []byte
	if ok, err := found(c.queryRow(sourceTextSQL, id).Scan(&blob)); !ok {
		return "", false, err
	}
	t, sum, ok := c.rd.texts.get(id, blob)
	if !ok {
		if t, err = c.decompressor().decompressString(blob); err != nil {
			return "", false, fmt.Errorf("file %d: %w", id, err)
		}
	}
	if !ok || hash != "" {
		c.rd.texts.put(id, sum, hash, t)
	}
	c.texts[id] = t
	return t, true, nil
}

// span returns text[start:end] of file id.
func (c *sourceCache) span(id int64, start, end int) (string, bool, error) {
	return c.spanOf(id, "", start, end)
}

// spanOf is span for a file of known content hash (textOf).
func (c *sourceCache) spanOf(id int64, hash string, start, end int) (string, bool, error) {
	t, ok, err := c.textOf(id, hash)
	if !ok {
		return "", false, err
	}
	if start < 0 || start > end || end > len(t) {
		return "", false, fmt.Errorf("%w: file %d: bytes [%d, %d) of a text of %d", ErrDamaged, id, start, end, len(t))
	}
	return t[start:end], true, nil
}

// fileLists returns the decoded lists of file id, nil when it has none.
func (c *sourceCache) fileLists(id int64) (*fileLists, error) {
	if l, ok := c.lists[id]; ok {
		return l, nil
	}
	var blob []byte
	var n int
	if ok, err := found(c.queryRow(sourceListsSQL, id).Scan(&blob, &n)); !ok {
		return nil, err
	}
	b, err := c.decompressor().decompress(blob)
	if err != nil {
		return nil, fmt.Errorf("file %d: %w", id, err)
	}
	l, err := parseLists(bytes.Clone(b), n)
	if err != nil {
		return nil, fmt.Errorf("file %d: %w", id, err)
	}
	if len(c.lists) >= maxCachedSources {
		clear(c.lists)
	}
	c.lists[id] = l
	return l, nil
}

// loadLists decodes the lists of the files ids (those not decoded yet)
// with one statement, so that the fileLists calls that follow find them.
func (c *sourceCache) loadLists(ids []int64) error {
	want := uncached(c.lists, ids)
	if len(want) == 0 {
		return nil
	}
	rows, err := c.query(sourcesListsSQL, jsonIDs(want))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var blob []byte
		var n int
		if err := rows.Scan(&id, &blob, &n); err != nil {
			return err
		}
		b, err := c.decompressor().decompress(blob)
		if err != nil {
			return fmt.Errorf("file %d: %w", id, err)
		}
		l, err := parseLists(bytes.Clone(b), n)
		if err != nil {
			return fmt.Errorf("file %d: %w", id, err)
		}
		c.lists[id] = l
	}
	return rows.Err()
}

// chunkIdents returns the identifiers of the chunk with ordinal ord among
// the chunks of file id.
func (c *sourceCache) chunkIdents(id int64, ord int) ([]string, error) {
	l, err := c.fileLists(id)
	if err != nil || l == nil {
		return nil, err
	}
	return l.list(listsPerSymbol*l.symbols + ord)
}

// symbolLists returns the lists (identifiers, calls, strings) of the
// symbol with ordinal ord among the symbols of file id.
func (c *sourceCache) symbolLists(id int64, ord int) (lists [listsPerSymbol][]string, err error) {
	l, err := c.fileLists(id)
	if err != nil || l == nil {
		return lists, err
	}
	for i := range lists {
		if lists[i], err = l.list(listsPerSymbol*ord + i); err != nil {
			return lists, err
		}
	}
	return lists, nil
}

// uncached returns the distinct ids that m lacks, for one statement to
// read. When reading them would take m past maxCachedSources, m is
// emptied first and every id is returned, so that the calls that follow
// find all of them.
func uncached[V any](m map[int64]V, ids []int64) []int64 {
	var want []int64
	for _, id := range ids {
		if _, ok := m[id]; !ok && !slices.Contains(want, id) {
			want = append(want, id)
		}
	}
	if len(want) > 0 && len(m)+len(want) > maxCachedSources {
		clear(m)
		want = want[:0]
		for _, id := range ids {
			if !slices.Contains(want, id) {
				want = append(want, id)
			}
		}
	}
	return want
}

// loadDecls reads the decls blobs of the files ids (those not read yet)
// with one statement, so that the symbolDecl calls that follow find them.
func (c *sourceCache) loadDecls(ids []int64) error {
	want := uncached(c.decls, ids)
	if len(want) == 0 {
		return nil
	}
	rows, err := c.query(sourcesDeclsSQL, jsonIDs(want))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		c.decls[id] = blob
	}
	return rows.Err()
}

// symbolDecl returns the signature and doc of the symbol with ordinal ord
// among the symbols of file id; ok is false when the file has no sources
// row (it is gone).
func (c *sourceCache) symbolDecl(id int64, ord int) (signature, doc string, ok bool, err error) {
	blob, ok := c.decls[id]
	if !ok {
		if err := c.loadDecls([]int64{id}); err != nil {
			return "", "", false, err
		}
		if blob, ok = c.decls[id]; !ok {
			return "", "", false, nil
		}
	}
	signature, doc, err = c.declsR.decl(id, blob, ord)
	return signature, doc, err == nil, err
}

const symbolIDsSQL = `SELECT id FROM symbols WHERE file_id = ? ORDER BY id`

// declOf sets *signature and *doc to those of symbol id (a rowid) of file
// fileID; ok is false when the symbol or its file is gone. The file's
// symbol ids, in order, give its ordinal (sources.decls is in rowid
// order); they are read once per file and snapshot.
func (c *sourceCache) declOf(fileID, id int64, signature, doc *string) (ok bool, err error) {
	ids, ok := c.symbolIDs[fileID]
	if !ok {
		rows, err := c.query(symbolIDsSQL, fileID)
		if err != nil {
			return false, err
		}
		for rows.Next() {
			var s int64
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return false, err
			}
			ids = append(ids, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return false, err
		}
		if c.symbolIDs == nil || len(c.symbolIDs) >= maxCachedSources {
			c.symbolIDs = map[int64][]int64{}
		}
		c.symbolIDs[fileID] = ids
	}
	ord, found := slices.BinarySearch(ids, id)
	if !found {
		return false, nil
	}
	*signature, *doc, ok, err = c.symbolDecl(fileID, ord)
	return ok, err
}
