package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/tables"
)

var sidRe = lazyregexp.New(`^s[0-9a-f]{16}$`)

// ErrNoSymbol is the error, wrapped, when no symbol has the id or name
// asked for.
var ErrNoSymbol = errors.New("no such symbol")

// maxOthers bounds SymbolDetails.Others: the other symbols an ambiguous
// name matches equally well, listed briefly.
const maxOthers = 5

// SymbolOptions shape a Symbol answer. The zero value includes the code,
// up to MaxCodeBytes.
type SymbolOptions struct {
	NoCode   bool // leave the code out
	MaxBytes int  // cut the code after this many bytes, at a line end (0 or more than MaxCodeBytes: MaxCodeBytes)
}

// Symbol returns everything the index holds about one symbol, given its id
// (sid) or a name, with its code.
func (p *Planner) Symbol(ctx context.Context, idOrName string) (*SymbolDetails, error) {
	return p.SymbolWith(ctx, idOrName, SymbolOptions{})
}

// SymbolWith is Symbol with options. A name is resolved by the rules of
// the definition intent (exact name first, type-like kinds first,
// exported first, outside tests first), except that:
//
//   - a qualified name (Class.method, pkg::Func) answers the symbol of
//     that qualified name alone; other symbols of the same last name are
//     not listed unless several have that qualified name;
//   - a qualified name whose owner is a type that does not define the
//     member is answered by the definition it inherits, found through the
//     base classes written in the type's signature, and Note says so
//     ("Flask defines no route; it inherits Scaffold.route: Flask → App
//     → Scaffold"); when no base in the index defines it, ErrNoSymbol
//     names the symbols that have that name;
//   - an unqualified name that several symbols match equally well lists
//     at most maxOthers of them in Others, and Note counts the rest.
//
// The doc is left out (DocInCode set) when the code holds it, so the
// docstring is sent once.
func (p *Planner) SymbolWith(ctx context.Context, idOrName string, opts SymbolOptions) (*SymbolDetails, error) {
	idOrName = strings.TrimSpace(idOrName)
	if idOrName == "" {
		return nil, errors.New("symbol: empty id or name")
	}
	sid := idOrName
	d := &SymbolDetails{}
	if !sidRe.MatchString(idOrName) {
		r, err := p.symbols.resolveName(ctx, idOrName)
		if err != nil {
			return nil, err
		}
		sid, d.Others, d.Note = r.sid, r.others, r.note
		if len(r.others) > 0 && len(parseDefQuery(idOrName).parts) == 1 {
			var aside *SymRef
			if sid, d.Note, aside, err = p.mostUsed(ctx, idOrName, r); err != nil {
				return nil, err
			}
			d.Others = slices.DeleteFunc(d.Others, func(o SymRef) bool { return o.ID == sid || aside != nil && o.ID == aside.ID })
			if aside != nil {
				d.Others = append([]SymRef{*aside}, d.Others...) // the name's first pick stays listed
			}
		}
	}
	info, ok, err := p.db.SymbolInfo(ctx, sid)
	if err != nil {
		return nil, fmt.Errorf("symbol %q: %w", sid, err)
	}
	if !ok {
		return nil, fmt.Errorf("symbol %q: %w: not in the index (ids change when a symbol is renamed or moved; search again)", sid, ErrNoSymbol)
	}
	d.ID, d.Kind, d.Name, d.Qualname, d.Path, d.Language = info.SID, info.Kind, info.Name, info.Qualname, info.Path, info.Language
	d.StartLine, d.EndLine, d.StartByte, d.EndByte = info.StartLine, info.EndLine, info.StartByte, info.EndByte
	d.Signature, d.Doc, d.Exported, d.Hash = info.Signature, info.Doc, info.Exported, info.Hash
	d.Decorators, d.Identifiers, d.Calls, d.Strings = info.Decorators, info.Identifiers, info.Calls, info.Strings
	fileID := info.FileID
	if info.ParentSID != "" {
		r, ok, err := p.db.SymbolBySID(ctx, info.ParentSID)
		if err != nil {
			return nil, err
		}
		if ok {
			d.Parent = &SymRef{ID: r.SID, Kind: r.Kind, Qualname: r.Qualname, Path: r.Path, StartLine: r.StartLine, EndLine: r.EndLine}
		}
	}
	children, err := p.db.SymbolChildren(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	for _, c := range children {
		d.Children = append(d.Children, *symRef(c))
	}
	if !opts.NoCode {
		lines, err := p.page.fileLines(ctx, fileID, d.StartLine, d.EndLine)
		if err != nil {
			return nil, err
		}
		max := opts.MaxBytes
		if max <= 0 || max > MaxCodeBytes {
			max = MaxCodeBytes
		}
		d.Code, d.CodeTruncated = capLines(lines, max)
		if d.Doc != "" && docInCode(d.Doc, d.Code) {
			d.Doc, d.DocInCode = "", true
		}
	}
	d.SuggestedNextActions = []Action{
		{Tool: StepReferences, Args: map[string]any{"id": d.ID}, Reason: "where " + d.Name + " is used"},
	}
	if d.CodeTruncated {
		d.SuggestedNextActions = append(d.SuggestedNextActions, Action{Tool: StepReadLines,
			Args: map[string]any{"path": d.Path, "start_line": d.StartLine, "end_line": d.EndLine}, Reason: "the rest of the code"})
	}
	if d.Parent != nil {
		d.SuggestedNextActions = append(d.SuggestedNextActions, Action{Tool: StepSymbol, Args: map[string]any{"id": d.Parent.ID}, Reason: "the enclosing " + d.Parent.Kind})
	}
	return d, nil
}

// capLines joins lines up to max bytes, on a line boundary.
func capLines(lines []string, maxBytes int) (string, bool) {
	var b strings.Builder
	for i, l := range lines {
		if b.Len()+len(l)+1 > maxBytes {
			return b.String(), true
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String(), false
}

// docInCode reports whether code holds doc (a docstring, or a doc
// comment inside the symbol's lines): its first and last non-empty lines
// appear in the code, in that order, as written after their
// indentation.
func docInCode(doc, code string) bool {
	var lines []string
	for _, l := range strings.Split(doc, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return false
	}
	i := strings.Index(code, lines[0])
	if i < 0 {
		return false
	}
	return strings.Contains(code[i:], lines[len(lines)-1])
}

// symRef is a SymRef of a symbol in brief.
func symRef(s tables.SymbolSpan) *SymRef {
	return &SymRef{ID: s.SID, Kind: s.Kind, Qualname: s.Qualname, Path: s.Path, StartLine: s.StartLine, EndLine: s.EndLine}
}

// mostUsed picks, among the definitions a bare name shares, the one the
// repository uses most (its resolved and likely references), when that
// is not already r's pick, and says so; aside is r's pick when set
// aside.
func (p *Planner) mostUsed(ctx context.Context, name string, r resolved) (sid, note string, aside *SymRef, err error) {
	refs, err := p.References(ctx, RefsRequest{Name: name, Limit: 1})
	if err != nil || refs.Symbol == nil || refs.Symbol.ID == r.sid {
		return r.sid, r.note, nil, err
	}
	chosen := refs.Confidence[ConfResolved] + refs.Confidence[ConfLikely]
	for _, d := range refs.Definitions {
		if d.ID == r.sid {
			if d.References >= chosen {
				return r.sid, r.note, nil, nil
			}
			aside = &d.SymRef
		}
	}
	note = fmt.Sprintf("%d definitions are named %s; chose %s, the most used (%d resolved or likely references; the references of %s list the others with their counts)", refs.SharedBy, name, refs.Symbol.Qualname, chosen, name)
	return refs.Symbol.ID, strings.TrimSpace(note + " " + r.note), aside, nil
}
