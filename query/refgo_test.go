package query

import (
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
	line := func(path, text string) string { return atLine(t, goTypesRepo, path, text) }
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

// goOutsideRepo is a small module whose values come from outside
// packages: a recorder's body, a mux made by the standard library, a
// writer asserted to an outside interface and to one of the
// repository's of another signature, a pool's literal, a context value
// asserted to the repository's type, and names inside strings.
var goOutsideRepo = map[string]string{
	"go.mod": "module example.com/app\n\ngo 1.22\n",
	"app.go": `package app

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Router is an http.Handler that routes.
type Router interface {
	http.Handler
	Handle(pattern string, h http.Handler)
}

// Mux routes requests; it is a Router.
type Mux struct {
	pool *sync.Pool
	node *node
}

// Handle adds a route.
func (m *Mux) Handle(pattern string, h http.Handler) {}

// ServeHTTP serves a request.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rctx, _ := r.Context().Value(ctxKey{}).(*Ctx)
	rctx.Routes = m
	rctx.Flush()
}

// Ctx is a request's routing state.
type Ctx struct {
	Routes Router
}

// Flush ends the request's state.
func (c *Ctx) Flush() {}

// Chain is a handler made of others; it is no Router.
type Chain struct{ h http.Handler }

// ServeHTTP serves through the chain.
func (c *Chain) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.h.ServeHTTP(w, r) }

type ctxKey struct{}

// String names the key.
func (k ctxKey) String() string { return "ctx" }

// Handler is what the mux serves.
func (m *Mux) Handler() http.Handler { return m }

type node struct{ prefix string }

// Name names the node.
func (n *node) Name() string { return n.prefix }

// Pattern is a header pattern.
type Pattern struct{ prefix string }

type flusher interface {
	Flush() error
}

// writer flushes what it wrote.
type writer struct{ w io.Writer }

// Flush flushes the writer.
func (w *writer) Flush() {
	if f, ok := w.w.(http.Flusher); ok {
		f.Flush() // an outside interface
	}
	if f, ok := w.w.(flusher); ok {
		f.Flush() // of another signature
	}
}

// New makes a pool of writers.
func New() *sync.Pool {
	return &sync.Pool{
		New: func() any { return &writer{} },
	}
}

// Entry logs a request.
type Entry interface {
	Flush()
}

// Log writes a request's line: no io.Writer, whatever its name.
type Log struct{ http.ResponseWriter }

// Write writes the line.
func (l *Log) Write(status, size int) {}

// Close closes the log.
func (l *Log) Close() error { return nil }

// Recorder is a ResponseWriter that records its status.
type Recorder interface {
	http.ResponseWriter
	Status() int
}

func hello(w http.ResponseWriter) {
	w.Write([]byte("hello"))
	msg := fmt.Sprint("hi")
	w.Write([]byte(msg))
	srv := httptest.NewServer(nil)
	srv.Close()
	if _, err := io.ReadAll(nil); err != nil {
		panic(err.Error())
	}
}

type failure struct{}

// Error says what failed.
func (failure) Error() string { return "failed" }

func debug(n *node) string { return fmt.Sprintf("prefix:%s", n.prefix) }

func body() string {
	w := httptest.NewRecorder()
	return w.Body.String()
}

func built() string {
	var sb strings.Builder
	fmt.Fprint(&sb, "built")
	return sb.String()
}
`,
	"use/use.go": `package use

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"example.com/app"
)

func serve(next http.Handler, e app.Entry) string {
	w := httptest.NewRecorder()
	next.ServeHTTP(w, nil)
	http.NotFoundHandler().ServeHTTP(w, nil)
	mux := http.NewServeMux()
	mux.Handle("/", next)
	e.Flush()
	srv := http.Server{Handler: next}
	_ = srv
	f, _ := os.OpenFile(filepath.Join("a", "b"), os.O_CREATE, 0o400)
	_ = f.Name()
	return w.Body.String() + "app.New()" + *new(string)
}
`,
}

// TestRefsGoOutside: calls on values of outside types reach a method of
// the repository as gopls counts them (through an outside interface that
// a repository's interface the type implements embeds, or in the type's
// own package), interfaces' methods of another signature or of another
// interface are not the method, and keys and string text name nothing.
func TestRefsGoOutside(t *testing.T) {
	p := refsRepo(t, goOutsideRepo)
	line := func(path, text string) string { return atLine(t, goOutsideRepo, path, text) }
	for _, tc := range []struct {
		path, qualname string
		want           map[string]string
	}{
		// Mux is a Router, which embeds http.Handler: a call through one
		// (or through a value of unknown type) may reach it; Chain is no
		// Router: only in its own package.
		{"app.go", "Mux.ServeHTTP", map[string]string{
			line("use/use.go", "next.ServeHTTP(w, nil)"):                   ConfNameOnly,
			line("use/use.go", "http.NotFoundHandler().ServeHTTP(w, nil)"): ConfNameOnly,
			line("app.go", "c.h.ServeHTTP(w, r)"):                          ConfNameOnly,
		}},
		{"app.go", "Chain.ServeHTTP", map[string]string{
			line("use/use.go", "next.ServeHTTP(w, nil)"):                   "",
			line("use/use.go", "http.NotFoundHandler().ServeHTTP(w, nil)"): "",
			line("app.go", "c.h.ServeHTTP(w, r)"):                          ConfNameOnly,
		}},
		// A value an outside function returns is of an outside type: the
		// Router's own methods and a type of no outside interface are not
		// reached through it.
		{"app.go", "Mux.Handle", map[string]string{line("use/use.go", `mux.Handle("/", next)`): ""}},
		{"app.go", "ctxKey.String", map[string]string{line("use/use.go", "w.Body.String()"): "", line("app.go", "return w.Body.String()"): "", line("app.go", "return sb.String()"): ""}},
		// An interface of the repository whose method has another
		// signature, and another interface's method of the name.
		{"app.go", "writer.Flush", map[string]string{
			line("app.go", "an outside interface"): ConfNameOnly,
			line("app.go", "of another signature"): "",
		}},
		{"app.go", "Entry.Flush", map[string]string{line("app.go", "of another signature"): ""}},
		// A variable asserted from a value the checker could not type has
		// the asserted type.
		{"app.go", "Ctx.Routes", map[string]string{line("app.go", "rctx.Routes = m"): ConfResolved}},
		{"app.go", "Ctx.Flush", map[string]string{line("app.go", "rctx.Flush()"): ConfResolved}},
		// A composite literal's key is a field, never a method or a
		// function; a name in a string is no use.
		{"app.go", "app.New", map[string]string{
			line("app.go", "New: func() any"): "",
			line("use/use.go", `"app.New()"`): "",
		}},
		// A call of another number of arguments is not the method's; a
		// type that embeds an outside type it is not shown to implement a
		// repository's interface by is reached through no value of
		// unknown type.
		{"app.go", "Log.Write", map[string]string{line("app.go", `w.Write([]byte("hello"))`): "", line("app.go", "w.Write([]byte(msg))"): ""}},
		// A value an outside function returns given outside values.
		{"app.go", "node.Name", map[string]string{line("use/use.go", "_ = f.Name()"): ""}},
		{"app.go", "Log.Close", map[string]string{line("app.go", "srv.Close()"): ""}},
		// ... but a value of unknown type may be an error in the type's
		// own package.
		{"app.go", "failure.Error", map[string]string{line("app.go", "panic(err.Error())"): ConfNameOnly}},
		{"app.go", "Mux.Handler", map[string]string{line("use/use.go", "http.Server{Handler: next}"): ""}},
		{"app.go", "node.prefix", map[string]string{line("app.go", `fmt.Sprintf("prefix:%s", n.prefix)`): ConfResolved}},
		{"app.go", "Pattern.prefix", map[string]string{line("app.go", `fmt.Sprintf("prefix:%s", n.prefix)`): ""}},
	} {
		got, _ := refsOf(t, p, tc.path, tc.qualname)
		wantRefs(t, tc.qualname, got, tc.want)
	}
}
