package tables

import (
	"encoding/binary"
	"fmt"
)

// sources.decls holds the signature and doc of each symbol of a
// file, in rowid order, in blocks of declsBlock symbols: a reader decompresses
// the block of the symbol it shows, not the whole file's. A file's symbols
// have consecutive row ids (the writer inserts them one after another),
// so the blob starts with the first one's: a symbol's place is its id
// less that (Check verifies both). The blob is
//
//	uvarint first (the row id of the file's first symbol, 0 for none);
//	uvarint B (blocks); B × uvarint (compressed length of block b);
//	the B blocks, each its symbols' texts as one zstd frame (like
//	sources.text, sources.go),
//	declsPerSymbol per symbol (signature, doc), each uvarint(length) and
//	the bytes as extracted.
//
// A file without symbols has the blob {0, 0}. The blocks are compressed
// as every blob is (sources.go, ADR 17).

// declsPerSymbol is the number of texts sources.decls holds per symbol:
// signature, doc.
const declsPerSymbol = 2

// declsBlock is the number of symbols per block. On GOROOT/src one stream
// per file is 4.27 MB, blocks of 32 are 4.84 MB and of 16 5.34 MB, but the
// largest file's stream holds 296 KB of text and its largest block of 16
// 19 KB: decompressing whole streams made showing ten definitions cost
// about a millisecond of CPU (ADR 12).
const declsBlock = 16

// declsBlob is sources.decls of blocks (packDeclBlocks) whose first symbol
// has row id first: the writer knows it only once it has inserted it.
func declsBlob(first int64, blocks []byte) []byte {
	out := make([]byte, 0, binary.MaxVarintLen64+len(blocks))
	return append(binary.AppendUvarint(out, uint64(first)), blocks...)
}

// packDeclBlocks encodes raw as sources.decls less its first field: the
// number of blocks, their lengths and the blocks, compressed with zip.
func packDeclBlocks(zip *compressor, raw []byte) ([]byte, error) {
	var cuts []int // offsets in raw where blocks start
	n := 0
	for off := 0; off < len(raw); n++ {
		if n%(declsPerSymbol*declsBlock) == 0 {
			cuts = append(cuts, off)
		}
		l, k := binary.Uvarint(raw[off:])
		if k <= 0 || uint64(len(raw)-off-k) < l {
			return nil, fmt.Errorf("decls: text %d does not decode", n)
		}
		off += k + int(l)
	}
	if n%declsPerSymbol != 0 {
		return nil, fmt.Errorf("decls: %d texts, not %d per symbol", n, declsPerSymbol)
	}
	cuts = append(cuts, len(raw))
	out := binary.AppendUvarint(nil, uint64(len(cuts)-1))
	var body []byte
	for i := 0; i+1 < len(cuts); i++ {
		b, err := zip.compress(raw[cuts[i]:cuts[i+1]])
		if err != nil {
			return nil, fmt.Errorf("decls: compress block %d: %w", i, err)
		}
		out = binary.AppendUvarint(out, uint64(len(b)))
		body = append(body, b...)
	}
	return append(out, body...), nil
}

// errDecls is returned for a decls blob that does not decode.
var errDecls = fmt.Errorf("%w: sources.decls does not decode", ErrDamaged)

// declsBlocks returns the first symbol id of blob, its number of blocks
// and block i's compressed bytes (nil when i is out of range).
func declsBlocks(blob []byte, i int) (first int64, n int, block []byte, err error) {
	f, k0 := binary.Uvarint(blob)
	if k0 <= 0 || f > 1<<62 {
		return 0, 0, nil, errDecls
	}
	nb, k := binary.Uvarint(blob[k0:])
	if k <= 0 || nb > uint64(len(blob)) {
		return 0, 0, nil, errDecls
	}
	first = int64(f)
	off, start, size := k0+k, uint64(0), uint64(0)
	for j := uint64(0); j < nb; j++ {
		l, k := binary.Uvarint(blob[off:])
		if k <= 0 {
			return 0, 0, nil, errDecls
		}
		off += k
		switch {
		case j < uint64(i):
			start += l
		case j == uint64(i):
			size = l
		}
	}
	if i < 0 || uint64(i) >= nb {
		return first, int(nb), nil, nil
	}
	if start+size > uint64(len(blob)-off) {
		return 0, 0, nil, errDecls
	}
	return first, int(nb), blob[off+int(start) : off+int(start+size)], nil
}

// declsBlockTexts decodes block i of blob into its texts, with z (they
// are valid until z decompresses again).
func declsBlockTexts(z *decompressor, blob []byte, i int) (*fileLists, error) {
	_, _, b, err := declsBlocks(blob, i)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("%w: no block %d", errDecls, i)
	}
	raw, err := z.decompress(b)
	if err != nil {
		return nil, fmt.Errorf("%w: block %d: %w", errDecls, i, err)
	}
	return parseLists(raw, 0)
}

// declsReader reads symbols' texts from decls blobs, keeping the last
// block it decompressed (in z's buffer).
type declsReader struct {
	z     decompressor
	file  int64
	block int
	l     *fileLists
}

// decl returns the signature and doc of the symbol with ordinal ord among
// the symbols of file, whose decls blob is blob.
func (r *declsReader) decl(file int64, blob []byte, ord int) (signature, doc string, err error) {
	b := ord / declsBlock
	if r.l == nil || r.file != file || r.block != b {
		if r.l, err = declsBlockTexts(&r.z, blob, b); err != nil {
			r.l = nil
			return "", "", fmt.Errorf("file %d: %w", file, err)
		}
		r.file, r.block = file, b
	}
	e := declsPerSymbol * (ord % declsBlock)
	if signature, err = r.l.text(e); err == nil {
		doc, err = r.l.text(e + 1)
	}
	if err != nil {
		return "", "", fmt.Errorf("file %d: %w", file, err)
	}
	return signature, doc, nil
}

// declByID returns the signature and doc of symbol id of file, whose
// decls blob is blob.
func (r *declsReader) declByID(file int64, blob []byte, id int64) (signature, doc string, err error) {
	first, nb, _, err := declsBlocks(blob, -1)
	if err != nil {
		return "", "", fmt.Errorf("file %d: %w", file, err)
	}
	ord := id - first
	if ord < 0 || ord >= int64(nb)*declsBlock {
		return "", "", fmt.Errorf("file %d: %w: symbol %d is not among the file's (from %d)", file, errDecls, id, first)
	}
	return r.decl(file, blob, int(ord))
}

// checkDeclsBlob reports how blob fails to hold the texts of n symbols
// whose row ids run from minID to maxID.
func checkDeclsBlob(z *decompressor, blob []byte, n int, minID, maxID int64) error {
	first, nb, _, err := declsBlocks(blob, -1)
	if err != nil {
		return err
	}
	if n > 0 && (first != minID || maxID-minID+1 != int64(n)) {
		return fmt.Errorf("first symbol %d, but the file's %d symbols have ids %d to %d", first, n, minID, maxID)
	}
	if want := (n + declsBlock - 1) / declsBlock; nb != want {
		return fmt.Errorf("%d blocks for %d symbols", nb, n)
	}
	for i := 0; i < nb; i++ {
		l, err := declsBlockTexts(z, blob, i)
		if err != nil {
			return err
		}
		want := declsPerSymbol * min(declsBlock, n-i*declsBlock)
		if got := len(l.bounds) / 2; got != want {
			return fmt.Errorf("block %d holds %d texts, want %d", i, got, want)
		}
	}
	return nil
}
