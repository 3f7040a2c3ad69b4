package tables

import (
	"strings"

	"github.com/viberag/viberag/extract"
)

// Rows are the rows the SQLite writer stores for one file, as values: what
// another engine (tables/postgres) stores so that both hold the same facts
// (the same sids, cids, list columns, identifier parts and packed refs).
type Rows struct {
	Imports, Exports string // files.imports and files.exports
	Hash             string // files.hash
	Symbols          []SymbolFact
	Chunks           []ChunkFact
	Refs             []RefFact
}

// SymbolFact is one row of symbols (schema.sql), without its file id.
type SymbolFact struct {
	SID, Kind, Name, Qualname, ParentSID       string
	StartLine, EndLine, StartByte, EndByte     int
	Signature, Doc                             string
	Exported                                   bool
	Decorators, Identifiers, IdentParts, Calls string
	Strings, Hash                              string
}

// ChunkFact is one row of chunks (schema.sql), without its file id.
type ChunkFact struct {
	CID                                    string
	StartLine, EndLine, StartByte, EndByte int
	SymbolSID, Header, Content             string
	Identifiers, IdentParts, Calls         string
	Strings, Hash                          string
}

// RefFact is one row of refs (schema.sql): a (kind, name, target) of the
// file with its uses packed. Row is its ordinal within the file.
type RefFact struct {
	Row                   int
	Kind, Name, NameLower string
	Target                string
	N                     int
	Uses                  []byte
}

// FactBuilder derives Rows from extracted files. It keeps scratch space
// from file to file; it is not safe for concurrent use.
type FactBuilder struct{ rb rowBuilder }

// NewFactBuilder returns a FactBuilder.
func NewFactBuilder() *FactBuilder { return &FactBuilder{rb: newRowBuilder()} }

// Build returns the rows of f, derived exactly as Writer.Write derives them.
func (b *FactBuilder) Build(f *extract.File) *Rows {
	rb := &b.rb
	out := &Rows{Imports: joinPlain(f.Imports), Exports: joinPlain(f.Exports), Hash: Hex(f.Hash)}
	rb.symbolIDs(f)
	out.Symbols = make([]SymbolFact, len(f.Symbols))
	for i := range f.Symbols {
		s := &f.Symbols[i]
		out.Symbols[i] = SymbolFact{
			SID: rb.sid(i), Kind: s.Kind, Name: s.Name, Qualname: s.Qualname, ParentSID: rb.sid(s.Parent),
			StartLine: s.StartLine, EndLine: s.EndLine, StartByte: s.StartByte, EndByte: s.EndByte,
			Signature: s.Signature, Doc: s.Doc, Exported: s.Exported,
			Decorators:  joinList(&rb.sb, s.Decorators),
			Identifiers: joinList(&rb.sb, s.Identifiers),
			IdentParts:  rb.identParts(s.Name, s.Identifiers),
			Calls:       joinList(&rb.sb, s.Calls),
			Strings:     joinList(&rb.sb, s.Strings),
			Hash:        Hex(s.Hash),
		}
	}
	out.Chunks = make([]ChunkFact, 0, len(f.Chunks))
	for i := range f.Chunks {
		c := &f.Chunks[i]
		if repeatsLines(f.Chunks, i) {
			continue
		}
		out.Chunks = append(out.Chunks, ChunkFact{
			CID:       ChunkID(f.Path, c.StartLine, c.EndLine),
			StartLine: c.StartLine, EndLine: c.EndLine, StartByte: c.StartByte, EndByte: c.EndByte,
			SymbolSID: rb.sid(c.Symbol), Header: c.Header, Content: c.Text,
			Identifiers: joinList(&rb.sb, c.Identifiers),
			IdentParts:  rb.identParts("", c.Identifiers),
			Calls:       joinList(&rb.sb, c.Calls),
			Strings:     joinList(&rb.sb, c.Strings),
			Hash:        Hex(c.Hash),
		})
	}
	g := rb.groupRefs(f)
	out.Refs = make([]RefFact, len(g.order))
	for i, grp := range g.order {
		out.Refs[i] = RefFact{Row: i, Kind: grp.key.kind, Name: grp.key.name, NameLower: strings.ToLower(grp.key.name),
			Target: grp.key.target, N: len(grp.uses), Uses: packUses(grp.uses)}
	}
	return out
}

// repeatsLines reports whether chunk i spans the same lines as the chunk
// before it. Two such chunks would share a cid and hold the same text, so
// the writer and Facts both keep only the first.
func repeatsLines(cs []extract.Chunk, i int) bool {
	return i > 0 && cs[i].StartLine == cs[i-1].StartLine && cs[i].EndLine == cs[i-1].EndLine
}
