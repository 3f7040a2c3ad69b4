package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/viberag/viberag/query/resolve"
)

// goTypesRepo is a small module with two packages: routes through an
// interface, values returned by methods and held in fields, outside
// values of the standard library's types, and a type of the same method
// names that implements nothing.
var goTypesRepo = map[string]string{
	"go.mod": "module example.com/web\n\ngo 1.22\n",
	"router.go": `package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
)

// Router routes requests.
type Router interface {
	http.Handler
	Route(pattern string) Router
	Name() string
}

// Mux is a Router.
type Mux struct {
	parent *Mux
	name   string
}

// Route adds a sub-router.
func (m *Mux) Route(pattern string) Router { return &Mux{parent: m, name: pattern} }

// Name is the mux's name.
func (m *Mux) Name() string { return m.name }

// Root is the outermost mux.
func (m *Mux) Root() *Mux {
	if m.parent == nil {
		return m
	}
	return m.parent.Root()
}

// ServeHTTP serves a request.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {}

// Header is what a request's header routes by.
type Header struct {
	Name string
}

// String is the header's name.
func (h Header) String() string { return h.Name }

func describe(muxes []*Mux, h Header) string {
	buf := new(bytes.Buffer)
	var sb strings.Builder
	for _, m := range muxes {
		sb.WriteString(m.Root().Name())
	}
	buf.WriteString(sb.String())
	return buf.String() + h.String()
}

func show(s fmt.Stringer) string { return s.String() }

func chain(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
	})
}
`,
	"headers/headers.go": `package headers

import (
	"fmt"

	"example.com/web"
)

// HeaderRouter routes by a header; it is no web.Router.
type HeaderRouter struct{ routes map[string]string }

// Route adds a route.
func (hr HeaderRouter) Route(pattern string) HeaderRouter { return hr }

// key is a context key.
type key struct{ name string }

// String names the key.
func (k key) String() string { return "key " + k.name }

func use(r web.Router, m *web.Mux, s fmt.Stringer) string {
	r.Route("/a")
	m.Route("/b")
	return s.String() + r.Name()
}
`,
}

// TestRefsGoTypes: uses tied by the type checker where no line states
// the value's type (a call's result, a range variable, an interface's
// call), and members of outside values left out.
func TestRefsGoTypes(t *testing.T) {
	p := refsRepo(t, goTypesRepo)
	line := func(path, text string) string {
		for i, l := range strings.Split(goTypesRepo[path], "\n") {
			if strings.Contains(l, text) {
				return fmt.Sprintf("%s:%d", path, i+1)
			}
		}
		t.Fatalf("%s holds no %q", path, text)
		return ""
	}
	for _, tc := range []struct {
		path, qualname string
		want           map[string]string
	}{
		// A method on a call's result and on a range variable.
		{"router.go", "Mux.Name", map[string]string{line("router.go", "m.Root().Name()"): ConfResolved}},
		// ... is not the field of another struct.
		{"router.go", "Header.Name", map[string]string{line("router.go", "m.Root().Name()"): "", line("router.go", "return h.Name"): ConfResolved}},
		// Members of values of outside types (a pointer made by new, a
		// variable never assigned) are no definition's here.
		{"router.go", "Header.String", map[string]string{
			line("router.go", "buf.WriteString(sb.String())"):     "",
			line("router.go", "return buf.String() + h.String()"): ConfResolved,
		}},
		// A call through the repository's interface reaches the methods of
		// the types that have its methods, not those of a type that lacks
		// some.
		{"router.go", "Mux.Route", map[string]string{
			line("headers/headers.go", `r.Route("/a")`): ConfNameOnly,
			line("headers/headers.go", `m.Route("/b")`): ConfResolved,
		}},
		{"headers/headers.go", "HeaderRouter.Route", map[string]string{
			line("headers/headers.go", `r.Route("/a")`): "",
			line("headers/headers.go", `m.Route("/b")`): "",
		}},
		// A call through an outside interface may reach an exported
		// type's method, but no unexported type's outside its package.
		{"router.go", "Mux.ServeHTTP", map[string]string{line("router.go", "next.ServeHTTP(w, r)"): ConfNameOnly}},
		{"headers/headers.go", "key.String", map[string]string{
			line("headers/headers.go", "s.String()"):              ConfNameOnly,
			line("router.go", "return buf.String() + h.String()"): "",
			line("router.go", "return s.String()"):                "",
		}},
	} {
		got, _ := refsOf(t, p, tc.path, tc.qualname)
		wantRefs(t, tc.qualname, got, tc.want)
	}
}

// TestRefsGoTypesBound: past the bound of lines checked, a package's
// lines are judged from their text, still listed, and the answer says so.
func TestRefsGoTypesBound(t *testing.T) {
	filler := strings.Repeat("var _ = 0\n", resolve.GoCheckLines/2+500)
	p := refsRepo(t, map[string]string{
		"go.mod": "module example.com/big\n",
		"a/a.go": "package a\n\n// Count counts.\nfunc Count() int { return 1 }\n\nvar n = Count()\n" + filler,
		"b/b.go": "package b\n\nimport \"example.com/big/a\"\n\nvar m = a.Count()\n" + filler,
		"c/c.go": "package c\n\n// Count counts too.\nfunc Count() int { return 2 }\n",
	})
	got, r := refsOf(t, p, "a/a.go", "a.Count")
	wantRefs(t, "a.Count", got, map[string]string{"a/a.go:6": ConfResolved, "b/b.go:5": ConfResolved})
	noted := false
	for _, n := range r.Notes {
		noted = noted || strings.Contains(n, "Go types were checked in 2 of the 3 packages")
	}
	if !noted {
		t.Errorf("notes %q: want the bound named", r.Notes)
	}
}
