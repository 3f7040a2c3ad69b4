package scope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/viberag/viberag/extract"
)

// Scope restricts a search. Every list field matches when any of its
// values matches (path_not_contains: when none does); fields combine with
// AND. The zero Scope matches everything.
type Scope struct {
	// PathPrefix keeps paths starting with one of these strings, compared
	// literally ("src/" does not match "src2/x", "src" does). Paths are
	// repo-relative with '/' separators; a leading "./" or "/" and '\'
	// separators in a value are normalised away.
	PathPrefix []string `json:"path_prefix,omitempty"`
	// PathContains keeps paths containing one of these substrings.
	PathContains []string `json:"path_contains,omitempty"`
	// PathNotContains drops paths containing any of these substrings.
	PathNotContains []string `json:"path_not_contains,omitempty"`
	// Extension keeps files with one of these extensions, with or without
	// the leading dot, case-insensitive (".go", "go", "GO").
	Extension []string `json:"extension,omitempty"`
	// SymbolKind keeps symbols of these kinds (see Kinds).
	SymbolKind []string `json:"symbol_kind,omitempty"`
	// IsExported keeps exported (true) or unexported (false) symbols.
	IsExported *bool `json:"is_exported,omitempty"`
	// Decorator keeps symbols carrying one of these decorators, annotations
	// or attributes, by exact name without the '@' ("app.route",
	// "Override"); a leading '@' in a value is ignored.
	Decorator []string `json:"decorator,omitempty"`
}

// Limits on a Scope's values.
const (
	MaxValues   = 64   // values per field
	MaxValueLen = 1024 // bytes per value
)

// Field names, as in JSON and in error messages.
const (
	FieldPathPrefix      = "path_prefix"
	FieldPathContains    = "path_contains"
	FieldPathNotContains = "path_not_contains"
	FieldExtension       = "extension"
	FieldSymbolKind      = "symbol_kind"
	FieldIsExported      = "is_exported"
	FieldDecorator       = "decorator"
)

// Fields lists the field names in the order filters are applied.
var fields = []string{
	FieldPathPrefix, FieldPathContains, FieldPathNotContains, FieldExtension,
	FieldSymbolKind, FieldIsExported, FieldDecorator,
}

// Kinds returns the symbol kinds symbol_kind accepts: the kinds the
// extractors write (extract.Kind*), sorted.
func Kinds() []string {
	k := []string{
		extract.KindFunction, extract.KindMethod, extract.KindClass, extract.KindStruct,
		extract.KindInterface, extract.KindTrait, extract.KindEnum, extract.KindType,
		extract.KindConst, extract.KindVar, extract.KindModule, extract.KindImpl,
		extract.KindSection, extract.KindMacro, extract.KindField, extract.KindProperty,
		extract.KindNamespace, extract.KindTest,
	}
	slices.Sort(k)
	return k
}

// FieldError is a problem with one field of a Scope. Value is the
// offending value as the caller wrote it ("" when the problem is not one
// value, e.g. too many values).
type FieldError struct {
	Field  string
	Index  int // position of the value in the list; -1 when not a list item
	Value  string
	Reason string
}

func (e *FieldError) Error() string {
	switch {
	case e.Index >= 0:
		return fmt.Sprintf("scope: %s[%d] %q: %s", e.Field, e.Index, e.Value, e.Reason)
	case e.Value != "":
		return fmt.Sprintf("scope: %s %q: %s", e.Field, e.Value, e.Reason)
	default:
		return fmt.Sprintf("scope: %s: %s", e.Field, e.Reason)
	}
}

// Decode reads a Scope from JSON strictly: an unknown field, a value of
// the wrong type or trailing data is an error naming the field, and the
// result is validated. "null" and "{}" give the zero Scope.
func Decode(data []byte) (Scope, error) {
	var s Scope
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Scope{}, decodeError(err)
	}
	if dec.More() {
		return Scope{}, errors.New("scope: trailing data after the JSON object")
	}
	if err := s.Validate(); err != nil {
		return Scope{}, err
	}
	return s, nil
}

// UnmarshalJSON decodes strictly, as Decode, so that a Scope embedded in a
// larger request (an MCP tool argument) gets the same checks.
func (s *Scope) UnmarshalJSON(data []byte) error {
	// plain has Scope's fields but not its methods, so decoding it does not
	// recurse into UnmarshalJSON.
	type plain Scope
	var p plain
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return decodeError(err)
	}
	v := Scope(p)
	if err := v.Validate(); err != nil {
		return err
	}
	*s = v
	return nil
}

// decodeError rewords encoding/json's errors so they name the field.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return &FieldError{Field: "scope", Index: -1, Reason: "wrong type: got JSON " + te.Value + ", want an object"}
		}
		field, _, _ := strings.Cut(te.Field, ".")
		want := "a list of strings"
		if field == FieldIsExported {
			want = "true or false"
		}
		return &FieldError{Field: field, Index: -1, Reason: "wrong type: got JSON " + te.Value + ", want " + want}
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &FieldError{Field: strings.Trim(name, `"`), Index: -1,
			Reason: "unknown field; known fields: " + strings.Join(fields, ", ")}
	}
	return fmt.Errorf("scope: %w", err)
}

// Validate reports the first problem with s: a list over MaxValues, an
// empty or over-long value, a value holding a NUL or newline, or an
// unknown symbol kind.
func (s Scope) Validate() error {
	lists := []struct {
		field string
		vals  []string
	}{
		{FieldPathPrefix, s.PathPrefix},
		{FieldPathContains, s.PathContains},
		{FieldPathNotContains, s.PathNotContains},
		{FieldExtension, s.Extension},
		{FieldSymbolKind, s.SymbolKind},
		{FieldDecorator, s.Decorator},
	}
	kinds := Kinds()
	for _, l := range lists {
		if len(l.vals) > MaxValues {
			return &FieldError{Field: l.field, Index: -1,
				Reason: fmt.Sprintf("%d values, at most %d allowed", len(l.vals), MaxValues)}
		}
		for i, v := range l.vals {
			bad := func(reason string) error {
				return &FieldError{Field: l.field, Index: i, Value: v, Reason: reason}
			}
			switch {
			case strings.TrimSpace(v) == "":
				return bad("empty value")
			case len(v) > MaxValueLen:
				return bad(fmt.Sprintf("%d bytes, at most %d allowed", len(v), MaxValueLen))
			case strings.ContainsAny(v, "\x00\n"):
				// A newline can never match: paths hold none, and list
				// columns use it as the separator.
				return bad("contains a NUL or newline")
			}
			switch l.field {
			case FieldSymbolKind:
				if !slices.Contains(kinds, v) {
					return bad("unknown symbol kind; known kinds: " + strings.Join(kinds, ", "))
				}
			case FieldExtension:
				if e := normExt(v); e == "." || strings.ContainsAny(e[1:], "/\\") {
					return bad("not a file extension")
				}
			case FieldDecorator:
				if strings.TrimPrefix(strings.TrimSpace(v), "@") == "" {
					return bad("empty decorator name")
				}
			case FieldPathPrefix:
				if normPath(v) == "" {
					return bad("empty path after normalisation")
				}
			}
		}
	}
	return nil
}

// IsZero reports whether s filters nothing.
func (s Scope) IsZero() bool {
	return len(s.PathPrefix) == 0 && len(s.PathContains) == 0 && len(s.PathNotContains) == 0 &&
		len(s.Extension) == 0 && len(s.SymbolKind) == 0 && s.IsExported == nil && len(s.Decorator) == 0
}

// HasSymbolFilters reports whether s filters on symbol facts (kind,
// export status, decorators), which tables other than symbols answer
// through an owning symbol.
func (s Scope) HasSymbolFilters() bool {
	return len(s.SymbolKind) > 0 || s.IsExported != nil || len(s.Decorator) > 0
}

// normExt lower-cases an extension and gives it one leading dot.
func normExt(v string) string {
	return "." + strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), ".")
}

// normPath turns a path value into the index's form: '/' separators, no
// leading "./" or "/".
func normPath(v string) string {
	v = strings.ReplaceAll(v, `\`, "/")
	for {
		switch {
		case strings.HasPrefix(v, "./"):
			v = v[2:]
		case strings.HasPrefix(v, "/"):
			v = v[1:]
		default:
			return v
		}
	}
}

// normDecorator strips surrounding space and a leading '@'.
func normDecorator(v string) string {
	return strings.TrimPrefix(strings.TrimSpace(v), "@")
}
