package extract

import (
	"context"

	"github.com/viberag/viberag/extract/scan"
	"github.com/viberag/viberag/extract/syntax"
)

// scanReader reads a language of package scan: C, C++, C#, Haskell and
// Swift by their hand-written scanners, Markdown by its headings.
type scanReader struct{ lang string }

func (r scanReader) read(ctx context.Context, p string, src []byte, _ *syntax.Pool) (*Outline, error) {
	so, err := scan.Read(ctx, r.lang, p, src, chunkMax)
	if err != nil {
		return nil, err
	}
	out := &Outline{Doc: so.Doc, Status: ParseClean, Units: scannedUnits(so.Units)}
	if so.Repair != "" {
		out.Status, out.Problem = ParseRepaired, so.Repair
	}
	if so.Symbols != nil {
		out.Symbols = make([]Symbol, len(so.Symbols))
	}
	for i, s := range so.Symbols {
		out.Symbols[i] = Symbol{Kind: scannedKinds[s.Kind], Name: s.Name, Qualname: s.Qualname, Parent: s.Parent,
			StartLine: s.StartLine, EndLine: s.EndLine, StartByte: s.StartByte, EndByte: s.EndByte,
			Signature: s.Signature, Doc: s.Doc, Exported: s.Exported, Decorators: s.Decorators}
	}
	if so.Refs != nil {
		out.Refs = make([]Ref, len(so.Refs))
	}
	for i, r := range so.Refs {
		out.Refs[i] = Ref{Kind: scannedRefKinds[r.Kind], Name: r.Name, Target: r.Target,
			StartLine: r.StartLine, EndLine: r.EndLine, StartByte: r.StartByte, EndByte: r.EndByte}
	}
	return out, nil
}

func scannedUnits(us []scan.Unit) []Unit {
	if us == nil {
		return nil
	}
	out := make([]Unit, len(us))
	for i, u := range us {
		out[i] = Unit{StartLine: u.StartLine, EndLine: u.EndLine, Children: scannedUnits(u.Children)}
	}
	return out
}

// scannedKinds and scannedRefKinds name package scan's kinds.
var (
	scannedKinds = [...]string{
		scan.KindFunction:  KindFunction,
		scan.KindMethod:    KindMethod,
		scan.KindClass:     KindClass,
		scan.KindStruct:    KindStruct,
		scan.KindInterface: KindInterface,
		scan.KindTrait:     KindTrait,
		scan.KindEnum:      KindEnum,
		scan.KindType:      KindType,
		scan.KindConst:     KindConst,
		scan.KindVar:       KindVar,
		scan.KindModule:    KindModule,
		scan.KindImpl:      KindImpl,
		scan.KindSection:   KindSection,
		scan.KindMacro:     KindMacro,
		scan.KindField:     KindField,
		scan.KindProperty:  KindProperty,
		scan.KindNamespace: KindNamespace,
	}
	scannedRefKinds = [...]string{
		scan.RefImport: RefImport,
		scan.RefCall:   RefCall,
		scan.RefIdent:  RefIdent,
		scan.RefString: RefString,
		scan.RefType:   RefType,
	}
)
