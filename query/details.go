package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

const (
	symbolDetailsSQL = `SELECT s.sid, s.file_id, s.path, s.language, s.kind, s.name, s.qualname, s.parent_sid, s.start_line, s.end_line,
  s.start_byte, s.end_byte, s.signature, s.doc, s.is_exported, s.decorators, s.identifiers, s.calls, s.strings, s.hash
FROM symbols s WHERE s.sid = ?`
	symbolChildrenSQL = `SELECT s.sid, s.kind, s.qualname, s.path, s.start_line, s.end_line FROM symbols s WHERE s.parent_sid = ? ORDER BY s.start_line, s.qualname LIMIT 200`
	symbolBriefSQL    = `SELECT s.sid, s.kind, s.qualname, s.path, s.start_line, s.end_line FROM symbols s WHERE s.sid = ?`
)

var sidRe = regexp.MustCompile(`^s[0-9a-f]{16}$`)

// ErrNoSymbol is the error, wrapped, when no symbol has the id or name
// asked for.
var ErrNoSymbol = errors.New("no such symbol")

// maxOthers bounds SymbolDetails.Others.
const maxOthers = 20

// Symbol returns everything the index holds about one symbol, given its id
// (sid) or a name. A name picks the best definition by the rules of the
// definition intent (exact name first, type-like kinds first, exported
// first, outside tests first) and lists the other matches in Others.
func (p *Planner) Symbol(ctx context.Context, idOrName string) (*SymbolDetails, error) {
	idOrName = strings.TrimSpace(idOrName)
	if idOrName == "" {
		return nil, errors.New("symbol: empty id or name")
	}
	sid := idOrName
	var others []SymRef
	if !sidRe.MatchString(idOrName) {
		files, err := p.files.get(ctx, p)
		if err != nil {
			return nil, err
		}
		cands, _, err := p.definitions(ctx, idOrName, newScoped(Request{}.Scope), unitPool{}, files, false)
		if err != nil {
			return nil, err
		}
		if len(cands) == 0 {
			// A typo, or a prefix: widen as the definition intent does.
			if cands, _, err = p.definitions(ctx, idOrName, newScoped(Request{}.Scope), unitPool{}, files, true); err != nil {
				return nil, err
			}
		}
		if len(cands) == 0 {
			return nil, fmt.Errorf("symbol %q: %w: no symbol of that name (search with intent concept to find it by description)", idOrName, ErrNoSymbol)
		}
		sid = cands[0].u.id
		for _, c := range cands[1:] {
			if len(others) == maxOthers {
				break
			}
			others = append(others, SymRef{ID: c.u.id, Kind: c.u.symKind, Qualname: c.u.qualname, Path: c.u.path, StartLine: c.u.start, EndLine: c.u.end})
		}
	}
	d := &SymbolDetails{Others: others}
	var fileID int64
	var parent, decorators, identifiers, calls, strs string
	err := p.queryRow(ctx, symbolDetailsSQL, sid).Scan(&d.ID, &fileID, &d.Path, &d.Language, &d.Kind, &d.Name, &d.Qualname, &parent,
		&d.StartLine, &d.EndLine, &d.StartByte, &d.EndByte, &d.Signature, &d.Doc, &d.Exported, &decorators, &identifiers, &calls, &strs, &d.Hash)
	if err != nil {
		if errors.Is(err, errNoRows) {
			return nil, fmt.Errorf("symbol %q: %w: not in the index (ids change when a symbol is renamed or moved; search again)", sid, ErrNoSymbol)
		}
		return nil, fmt.Errorf("symbol %q: %w", sid, err)
	}
	d.Decorators, d.Identifiers, d.Calls, d.Strings = listColumn(decorators), listColumn(identifiers), listColumn(calls), listColumn(strs)
	if parent != "" {
		var r SymRef
		if err := p.queryRow(ctx, symbolBriefSQL, parent).Scan(&r.ID, &r.Kind, &r.Qualname, &r.Path, &r.StartLine, &r.EndLine); err == nil {
			d.Parent = &r
		} else if !errors.Is(err, errNoRows) {
			return nil, err
		}
	}
	rows, err := p.query(ctx, symbolChildrenSQL, d.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var r SymRef
		if err := rows.Scan(&r.ID, &r.Kind, &r.Qualname, &r.Path, &r.StartLine, &r.EndLine); err != nil {
			rows.Close()
			return nil, err
		}
		d.Children = append(d.Children, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	lines, err := p.fileLines(ctx, fileID, d.StartLine, d.EndLine)
	if err != nil {
		return nil, err
	}
	d.Code, d.CodeTruncated = capLines(lines, MaxCodeBytes)
	d.SuggestedNextActions = []Action{
		{Tool: ToolFindReferences, Args: map[string]any{"id": d.ID}, Reason: "where " + d.Name + " is used"},
	}
	if d.CodeTruncated {
		d.SuggestedNextActions = append(d.SuggestedNextActions, Action{Tool: ToolReadFileLines,
			Args: map[string]any{"path": d.Path, "start_line": d.StartLine, "end_line": d.EndLine}, Reason: "the rest of the code"})
	}
	if d.Parent != nil {
		d.SuggestedNextActions = append(d.SuggestedNextActions, Action{Tool: ToolSymbolDetails, Args: map[string]any{"id": d.Parent.ID}, Reason: "the enclosing " + d.Parent.Kind})
	}
	return d, nil
}

// listColumn splits a '\n'-joined list column.
func listColumn(s string) []string {
	var out []string
	for _, x := range strings.Split(s, "\n") {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
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

var errNoRows = sql.ErrNoRows
