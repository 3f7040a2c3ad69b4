package extract

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// pyFStrings is a module whose names are used inside f-strings only:
// attributes, calls, nested fields in a format spec, a conversion, a
// dict subscript with a string key, and literal braces that hold no code.
const pyFStrings = `"""Reports on accounts."""

from decimal import Decimal

WIDTH = 12


def money(amount: Decimal) -> str:
    return f"{amount:,.2f}"


def describe(user, ledger):
    header = f"{user.name!r} <{user.email}>"
    total = f"total: {money(ledger.total()):>{WIDTH}}"
    tags = f"{', '.join(sorted(user.tags))}"
    literal = f"{{placeholder}} and {{{user.nick}}}"
    nested = f"{f'{ledger.owner}'}"
    keyed = f"{ledger.rows['due']}"
    return "\n".join([header, total, tags, literal, nested, keyed])
`

// TestPythonFStringNames: the expressions in an f-string's replacement
// fields are read as code (identifiers, calls, string literals, with
// their lines), the text around them and doubled braces are not.
func TestPythonFStringNames(t *testing.T) {
	f, err := Extract(context.Background(), "reports.py", []byte(pyFStrings), Options{})
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(text string) int {
		for i, l := range strings.Split(pyFStrings, "\n") {
			if strings.Contains(l, text) {
				return i + 1
			}
		}
		t.Fatalf("no line holds %q", text)
		return 0
	}
	got := map[string]bool{}
	for _, r := range f.Refs {
		got[fmt.Sprintf("%s %s %d", r.Kind, r.Name, r.StartLine)] = true
	}
	for _, tc := range []struct {
		kind, name, line string
		want             bool
	}{
		{RefIdent, "amount", `return f"{amount:,.2f}"`, true},
		{RefIdent, "user", `header = f"{user.name!r}`, true},
		{RefIdent, "name", `header = f"{user.name!r}`, true},
		{RefIdent, "email", `header = f"{user.name!r}`, true},
		{RefIdent, "money", `total = f"total:`, true},
		{RefCall, "money", `total = f"total:`, true},
		{RefIdent, "total", `total = f"total:`, true},
		{RefIdent, "WIDTH", `total = f"total:`, true}, // a field nested in the format spec
		{RefCall, "sorted", `tags = f"`, true},
		{RefIdent, "tags", `tags = f"`, true},
		{RefString, ", ", `tags = f"`, true},
		{RefIdent, "nick", `literal = f"`, true},         // inside `{{{…}}}`
		{RefIdent, "placeholder", `literal = f"`, false}, // `{{placeholder}}` is text
		{RefIdent, "owner", `nested = f"`, true},         // an f-string in a field
		{RefIdent, "rows", `keyed = f"`, true},
		{RefString, "due", `keyed = f"`, true},
		{RefIdent, "r", `header = f"{user.name!r}`, false}, // a conversion is no name
	} {
		k := fmt.Sprintf("%s %s %d", tc.kind, tc.name, lineOf(tc.line))
		if got[k] != tc.want {
			t.Errorf("%s: recorded %v, want %v", k, got[k], tc.want)
		}
	}
	// The literal text of the f-strings is still one string each.
	var strs []string
	for _, r := range f.Refs {
		if r.Kind == RefString && r.StartLine == lineOf(`header = f"`) {
			strs = append(strs, r.Name)
		}
	}
	if !slices.Equal(strs, []string{"{user.name!r} <{user.email}>"}) {
		t.Errorf("strings on the header line: %q", strs)
	}
}
