package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
)

// hierarchy is a small Flask-like tree: Flask inherits route from
// Scaffold through App, a blueprint defines its own, and eight unrelated
// functions share the name route.
func hierarchy(t *testing.T) *Planner {
	t.Helper()
	files := map[string]string{
		"app/scaffold.py": `class Scaffold:
    """Shared by apps and blueprints."""

    def route(self, rule, **options):
        """Register a view function for the rule.

        Use it as a decorator.
        """
        return self.add_url_rule(rule, **options)

    def add_url_rule(self, rule, **options):
        pass
`,
		"app/sansio.py":     "from app.scaffold import Scaffold\n\n\nclass App(Scaffold):\n    def make_config(self):\n        return {}\n",
		"app/app.py":        "from app.sansio import App\n\n\nclass Flask(App):\n    def wsgi_app(self, environ, start_response):\n        return []\n",
		"app/blueprints.py": "from app.scaffold import Scaffold\n\n\nclass Blueprint(Scaffold):\n    def route(self, rule):\n        return rule\n",
		"app/util.py":       "def helper():\n    return 1\n",
	}
	for i := range 8 {
		files[fmt.Sprintf("routes/r%d.py", i)] = fmt.Sprintf("def route():\n    return %d\n", i)
	}
	root, path := t.TempDir(), indextest.Path(t.TempDir())
	testkit.WriteFiles(t, root, files)
	indextest.Build(t, root, path, indexer.Options{})
	return plannerOn(t, path, Options{})
}

func othersOf(d *SymbolDetails) []string {
	var out []string
	for _, o := range d.Others {
		out = append(out, o.Qualname)
	}
	return out
}

// TestSymbolByQualifiedName: an exact qualified name
// answers that symbol alone; a member a class inherits is answered as
// inherited, saying from where, never silently; a class that neither
// defines nor inherits the member is an error naming what exists; an
// ambiguous bare name lists a few others briefly; the docstring is sent
// once.
func TestSymbolByQualifiedName(t *testing.T) {
	p := hierarchy(t)
	ctx := context.Background()

	d, err := p.Symbol(ctx, "Scaffold.route")
	if err != nil {
		t.Fatal(err)
	}
	if d.Qualname != "Scaffold.route" || len(d.Others) != 0 || d.Note != "" {
		t.Errorf("Scaffold.route: %s, others %q, note %q", d.Qualname, othersOf(d), d.Note)
	}
	// The docstring is inside the code: sent once, in the code.
	if d.Doc != "" || !d.DocInCode || !strings.Contains(d.Code, "Register a view function for the rule.") {
		t.Errorf("doc %q doc_in_code %v code:\n%s", d.Doc, d.DocInCode, d.Code)
	}
	noCode, err := p.SymbolWith(ctx, "Scaffold.route", SymbolOptions{NoCode: true})
	if err != nil || noCode.Code != "" || !strings.HasPrefix(noCode.Doc, "Register a view function") || noCode.DocInCode {
		t.Errorf("without code: doc %q code %q %v", noCode.Doc, noCode.Code, err)
	}

	// Inherited: answered, and said so with the chain.
	d, err = p.Symbol(ctx, "Flask.route")
	if err != nil {
		t.Fatal(err)
	}
	if d.Qualname != "Scaffold.route" || len(d.Others) != 0 ||
		!strings.Contains(d.Note, "Flask defines no route") || !strings.Contains(d.Note, "Flask → App → Scaffold") {
		t.Errorf("Flask.route: %s, others %q, note %q", d.Qualname, othersOf(d), d.Note)
	}
	// Its own definition wins over the inherited one.
	if d, err := p.Symbol(ctx, "Blueprint.route"); err != nil || d.Qualname != "Blueprint.route" || d.Note != "" {
		t.Errorf("Blueprint.route: %+v %v", d, err)
	}

	// Neither defined nor inherited: an error that names what exists.
	_, err = p.Symbol(ctx, "Flask.helper")
	if !errors.Is(err, ErrNoSymbol) || !strings.Contains(err.Error(), "defines no helper") || !strings.Contains(err.Error(), "helper (app/util.py:1)") {
		t.Errorf("Flask.helper: %v", err)
	}

	// A qualifier that is no type (a module): the best symbol of the
	// name, said so.
	if d, err := p.Symbol(ctx, "util.helper"); err != nil || d.Qualname != "helper" || !strings.Contains(d.Note, "no type is named util") {
		t.Errorf("util.helper: %+v %v", d, err)
	}

	// A bare ambiguous name: a few others, and how many more.
	d, err = p.Symbol(ctx, "route")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Others) != maxOthers || !strings.Contains(d.Note, "more symbols are named route") || slices.Contains(othersOf(d), d.Qualname) && d.Others[0].ID == d.ID {
		t.Errorf("route: %s, others %q, note %q", d.Qualname, othersOf(d), d.Note)
	}
}

// TestRefsByQualifiedName: references to a qualified name say how the
// name was read, as Symbol does, never silently: an inherited member (the
// chain), a module qualifier (the best symbol of the name), and a class
// that neither defines nor inherits the member, whose answer is the bare
// name's lines, said so.
func TestRefsByQualifiedName(t *testing.T) {
	p := hierarchy(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, symbol, note string
	}{
		{"Scaffold.route", "Scaffold.route", ""},
		{"Flask.route", "Scaffold.route", "Flask defines no route; it inherits Scaffold.route"},
		{"util.helper", "helper", "no type is named util"},
		{"Flask.helper", "helper", "no symbol is named Flask.helper: Flask (app/app.py:4) defines no helper, and no base class of it in the index does; symbols named helper: helper (app/util.py:1); these are the references of the name helper"},
	} {
		refs, err := p.References(ctx, RefsRequest{Name: tc.name})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if refs.Symbol == nil || refs.Symbol.Qualname != tc.symbol {
			t.Errorf("%s: the references of %+v, want %s", tc.name, refs.Symbol, tc.symbol)
		}
		notes := strings.Join(refs.Notes, "\n")
		if tc.note == "" && strings.Contains(notes, tc.name) || !strings.Contains(notes, tc.note) {
			t.Errorf("%s: notes %q, want one with %q", tc.name, refs.Notes, tc.note)
		}
	}
}

func TestBasesOf(t *testing.T) {
	tests := []struct {
		sig  string
		want []string
	}{
		{"class Flask(App):", []string{"App"}},
		{"class Foo(Generic[T], metaclass=ABCMeta):", []string{"Generic"}},
		{"class Queue:", nil},
		{"public final class ConnectionPool extends BasePool<Conn> implements AutoCloseable, Pool", []string{"BasePool", "AutoCloseable", "Pool"}},
		{"export class TRPCError extends Error", []string{"Error"}},
		{"class StoreUnavailable < StandardError; end", []string{"StandardError"}},
		{"class Metrics < ActiveRecord::Base", []string{"Base"}},
		{"public sealed class Grid : IEnumerable<object>, IDisposable", []string{"IEnumerable", "IDisposable"}},
		{"template <typename T> struct is_byte : std::false_type", []string{"false_type"}},
		{"class Derived : public virtual Base {", []string{"Base"}},
		{"final class UnfairLock: @unchecked Sendable", []string{"Sendable"}},
		{"class RetryPolicy(private val maxAttempts: Int) : Policy()", []string{"Policy"}},
		{"sealed abstract class PoolError(msg: String) extends Exception(msg) with Serializable", []string{"Exception", "Serializable"}},
		{"final class TransportException extends \\RuntimeException", []string{"RuntimeException"}},
		{"type Limiter struct", nil},
	}
	for _, tc := range tests {
		if got := basesOf(tc.sig); !slices.Equal(got, tc.want) {
			t.Errorf("basesOf(%q) = %q, want %q", tc.sig, got, tc.want)
		}
	}
}
