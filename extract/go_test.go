package extract

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// goServerSrc is a small but realistic package. A raw string cannot hold a
// back quote, so ´ stands for one.
var goServerSrc = strings.ReplaceAll(`// Package server serves the viberag HTTP API.
//
// It wraps net/http with graceful shutdown.
package server

import (
	"context"
	"fmt"
	nethttp "net/http"
	"sync"
)

// Defaults for a new server.
const (
	// DefaultAddr is where the server listens.
	DefaultAddr = ":8080"
	maxConns    = 64 // hard limit
)

// ErrClosed is returned after Close.
var ErrClosed = fmt.Errorf("server closed")

// Handler handles one request.
type Handler interface {
	// Serve answers r.
	Serve(ctx context.Context, r *nethttp.Request) error
	fmt.Stringer
}

// Server is a generic server keyed by T.
type Server[T comparable] struct {
	mu    sync.Mutex
	Addr  string // listen address
	peers map[T]*nethttp.Client
}

// New returns a server listening on addr.
func New[T comparable](addr string) *Server[T] {
	return &Server[T]{Addr: addr, peers: map[T]*nethttp.Client{}}
}

// Serve runs until ctx is done.
func (s *Server[T]) Serve(
	ctx context.Context, // cancels the listener
) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := any(s).(fmt.Stringer); ok {
		fmt.Println(´stringer´)
	}
	return nethttp.ListenAndServe(s.Addr, nil)
}

func (s Server[T]) peer(key T) (*nethttp.Client, bool) {
	c, ok := s.peers[key]
	return c, ok
}

//go:noinline
func clamp(n int) int {
	if n > maxConns {
		return maxConns
	}
	return n
}

// Token is an opaque credential.
type Token = string
`, "´", "`")

// goRead runs the Go reader and fails the test on error.
func goRead(t testing.TB, path, src string) *Outline {
	t.Helper()
	out, err := goReader{}.read(context.Background(), path, []byte(src), nil)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

// goSym is the part of a Symbol the reader fills, with the parent named.
type goSym struct {
	Kind, Name, Qualname, Parent string
	Start, End                   int
	Exported                     bool
	Signature, Doc               string
	Decorators                   []string
}

func goSyms(out *Outline) []goSym {
	var got []goSym
	for _, s := range out.Symbols {
		parent := ""
		if s.Parent >= 0 {
			parent = out.Symbols[s.Parent].Qualname
		}
		got = append(got, goSym{s.Kind, s.Name, s.Qualname, parent, s.StartLine, s.EndLine,
			s.Exported, s.Signature, s.Doc, s.Decorators})
	}
	return got
}

func TestGoReaderSymbols(t *testing.T) {
	out := goRead(t, "server/server.go", goServerSrc)
	if out.Status != ParseClean || out.Problem != "" {
		t.Errorf("status = %q, %q; want clean", out.Status, out.Problem)
	}
	if want := "Package server serves the viberag HTTP API.\n\nIt wraps net/http with graceful shutdown."; out.Doc != want {
		t.Errorf("doc = %q, want %q", out.Doc, want)
	}
	want := []goSym{
		{"const", "DefaultAddr", "server.DefaultAddr", "", 15, 16, true, `const DefaultAddr = ":8080"`, "DefaultAddr is where the server listens.", nil},
		{"const", "maxConns", "server.maxConns", "", 17, 17, false, "const maxConns = 64", "hard limit", nil},
		{"var", "ErrClosed", "server.ErrClosed", "", 20, 21, true, `var ErrClosed = fmt.Errorf("server closed")`, "ErrClosed is returned after Close.", nil},
		{"interface", "Handler", "server.Handler", "", 23, 28, true, "type Handler interface", "Handler handles one request.", nil},
		{"method", "Serve", "Handler.Serve", "server.Handler", 25, 26, true, "Serve(ctx context.Context, r *nethttp.Request) error", "Serve answers r.", nil},
		{"struct", "Server", "server.Server", "", 30, 35, true, "type Server[T comparable] struct", "Server is a generic server keyed by T.", nil},
		{"field", "mu", "Server.mu", "server.Server", 32, 32, false, "mu sync.Mutex", "", nil},
		{"field", "Addr", "Server.Addr", "server.Server", 33, 33, true, "Addr string", "listen address", nil},
		{"field", "peers", "Server.peers", "server.Server", 34, 34, false, "peers map[T]*nethttp.Client", "", nil},
		{"function", "New", "server.New", "", 37, 40, true, "func New[T comparable](addr string) *Server[T]", "New returns a server listening on addr.", nil},
		// The wrapped parameter list is rejoined and its comment dropped.
		{"method", "Serve", "Server.Serve", "server.Server", 42, 52, true, "func (s *Server[T]) Serve(ctx context.Context) error", "Serve runs until ctx is done.", nil},
		{"method", "peer", "Server.peer", "server.Server", 54, 57, false, "func (s Server[T]) peer(key T) (*nethttp.Client, bool)", "", nil},
		// The directive is a decorator, not doc.
		{"function", "clamp", "server.clamp", "", 59, 65, false, "func clamp(n int) int", "", []string{"go:noinline"}},
		{"type", "Token", "server.Token", "", 67, 68, true, "type Token = string", "Token is an opaque credential.", nil},
	}
	if got := goSyms(out); !reflect.DeepEqual(got, want) {
		t.Errorf("symbols:\n%s", goDiffLines(goFmtSyms(got), goFmtSyms(want)))
	}
	// Byte spans cover the same text as the lines.
	for _, s := range out.Symbols {
		goCheckSpan(t, goServerSrc, s.Qualname, s.StartLine, s.EndLine, s.StartByte, s.EndByte)
	}
	clamp := out.Symbols[12]
	if got, want := goServerSrc[clamp.StartByte:clamp.EndByte], "//go:noinline\nfunc clamp(n int) int {\n\tif n > maxConns {\n\t\treturn maxConns\n\t}\n\treturn n\n}"; got != want {
		t.Errorf("clamp bytes = %q, want %q", got, want)
	}
}

func TestGoReaderSymbolRules(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []goSym
	}{{
		name: "method before its type, value receiver, embedded and nested fields",
		src: `package p

func (c Conf) Get() string { return c.Name }

// Conf is configuration.
type Conf struct {
	sync.Mutex
	*Base
	// Name names it.
	Name, alias string
	_    int
	DB   struct {
		URL string
	}
}
`,
		want: []goSym{
			{"method", "Get", "Conf.Get", "p.Conf", 3, 3, true, "func (c Conf) Get() string", "", nil},
			{"struct", "Conf", "p.Conf", "", 5, 15, true, "type Conf struct", "Conf is configuration.", nil},
			{"field", "Mutex", "Conf.Mutex", "p.Conf", 7, 7, true, "sync.Mutex", "", nil},
			{"field", "Base", "Conf.Base", "p.Conf", 8, 8, true, "*Base", "", nil},
			{"field", "Name", "Conf.Name", "p.Conf", 9, 10, true, "Name, alias string", "Name names it.", nil},
			{"field", "alias", "Conf.alias", "p.Conf", 9, 10, false, "Name, alias string", "Name names it.", nil},
			{"field", "DB", "Conf.DB", "p.Conf", 12, 14, true, "DB struct", "", nil},
			{"field", "URL", "Conf.DB.URL", "Conf.DB", 13, 13, true, "URL string", "", nil},
		},
	}, {
		name: "receiver declared elsewhere, type params stripped, directives",
		src: `package p

// Close closes.
//
//go:generate stringer -type=Kind
//go:nosplit
func (l *List[K, V]) Close() error { return nil }
`,
		want: []goSym{
			{"method", "Close", "List.Close", "", 3, 7, true, "func (l *List[K, V]) Close() error", "Close closes.", []string{"go:generate", "go:nosplit"}},
		},
	}, {
		name: "single-spec decl doc, multi-name var, blank names, type group",
		src: `package p

// Limits.
const (
	Max = 10
)

// Pair holds two.
var a, B, _ = 1, 2, 3

type (
	// ID identifies.
	ID int64
	Fn func(int) error
)
`,
		want: []goSym{
			{"const", "Max", "p.Max", "", 5, 5, true, "const Max = 10", "Limits.", nil},
			{"var", "a", "p.a", "", 8, 9, false, "var a, B, _ = 1, 2, 3", "Pair holds two.", nil},
			{"var", "B", "p.B", "", 8, 9, true, "var a, B, _ = 1, 2, 3", "Pair holds two.", nil},
			{"type", "ID", "p.ID", "", 12, 13, true, "type ID int64", "ID identifies.", nil},
			{"type", "Fn", "p.Fn", "", 14, 14, true, "type Fn func(int) error", "", nil},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := goRead(t, "p.go", tt.src)
			if got := goSyms(out); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("symbols:\n%s", goDiffLines(goFmtSyms(got), goFmtSyms(tt.want)))
			}
			for _, s := range out.Symbols {
				goCheckSpan(t, tt.src, s.Qualname, s.StartLine, s.EndLine, s.StartByte, s.EndByte)
			}
		})
	}
}

// goRefsOf formats the refs of one kind as "name|target@line".
func goRefsOf(out *Outline, kind string) []string {
	var got []string
	for _, r := range out.Refs {
		if r.Kind != kind {
			continue
		}
		s := r.Name
		if r.Target != "" {
			s += "|" + r.Target
		}
		got = append(got, fmt.Sprintf("%s@%d", s, r.StartLine))
	}
	return got
}

func TestGoReaderRefs(t *testing.T) {
	out := goRead(t, "server/server.go", goServerSrc)
	tests := []struct {
		kind string
		want []string
	}{
		{RefImport, []string{"context@7", "fmt@8", "net/http|nethttp@9", "sync@10"}},
		{RefCall, []string{"Errorf|fmt.Errorf@21", "Lock|mu.Lock@46", "Unlock|mu.Unlock@47", "any@48",
			"Println|fmt.Println@49", "ListenAndServe|nethttp.ListenAndServe@51"}},
		// Import paths are imports, not strings; the raw string is unquoted.
		{RefString, []string{":8080@16", "server closed@21", "stringer@49"}},
		{RefType, []string{
			"context.Context@26", "nethttp.Request@26", "error@26", "fmt.Stringer@27", // interface
			"comparable@31", "sync.Mutex@32", "string@33", "T@34", "nethttp.Client@34", // struct
			"comparable@38", "string@38", "Server@38", "T@38", // New's signature
			"Server@39", "T@39", "T@39", "nethttp.Client@39", // composite literals
			"Server@43", "T@43", "context.Context@44", "error@45", // receiver, params, results
			"fmt.Stringer@48", // type assertion
			"Server@54", "T@54", "T@54", "nethttp.Client@54", "bool@54",
			"int@60", "int@60",
			"string@68", // alias target
		}},
		{RefIdent, []string{
			"server@4", "DefaultAddr@16", "maxConns@17", "ErrClosed@21", "fmt@21", "Errorf@21",
			"Handler@24", "Serve@26", "ctx@26", "context@26", "Context@26", "r@26", "nethttp@26", "Request@26", "error@26",
			"fmt@27", "Stringer@27", "Server@31", "T@31", "comparable@31", "mu@32", "sync@32", "Mutex@32",
			"Addr@33", "string@33", "peers@34", "T@34", "nethttp@34", "Client@34",
			"New@38", "T@38", "comparable@38", "addr@38", "string@38", "Server@38", "T@38",
			"Server@39", "T@39", "Addr@39", "addr@39", "peers@39", "T@39", "nethttp@39", "Client@39",
			"s@43", "Server@43", "T@43", "Serve@43", "ctx@44", "context@44", "Context@44", "error@45",
			"s@46", "mu@46", "Lock@46", "s@47", "mu@47", "Unlock@47",
			"ok@48", "any@48", "s@48", "fmt@48", "Stringer@48", "ok@48", // the blank identifier is not a use
			"fmt@49", "Println@49", "nethttp@51", "ListenAndServe@51", "s@51", "Addr@51", "nil@51",
			"s@54", "Server@54", "T@54", "peer@54", "key@54", "T@54", "nethttp@54", "Client@54", "bool@54",
			"c@55", "ok@55", "s@55", "peers@55", "key@55", "c@56", "ok@56",
			"clamp@60", "n@60", "int@60", "int@60", "n@61", "maxConns@61", "maxConns@62", "n@64",
			"Token@68", "string@68",
		}},
	}
	for _, tt := range tests {
		if got := goRefsOf(out, tt.kind); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s refs:\n%s", tt.kind, goDiffLines(got, tt.want))
		}
	}
	for i, r := range out.Refs {
		goCheckSpan(t, goServerSrc, r.Kind+" "+r.Name, r.StartLine, r.EndLine, r.StartByte, r.EndByte)
		if i > 0 && r.StartByte < out.Refs[i-1].StartByte {
			t.Errorf("ref %d (%s %s) out of source order", i, r.Kind, r.Name)
		}
	}
	// The import span is the spec; the call span is the callee's name.
	var imp, call Ref
	for _, r := range out.Refs {
		switch {
		case r.Kind == RefImport && r.Target == "nethttp":
			imp = r
		case r.Kind == RefCall && r.Name == "ListenAndServe":
			call = r
		}
	}
	if got := goServerSrc[imp.StartByte:imp.EndByte]; got != `nethttp "net/http"` {
		t.Errorf("import span = %q", got)
	}
	if got := goServerSrc[call.StartByte:call.EndByte]; got != "ListenAndServe" {
		t.Errorf("call span = %q", got)
	}
}

func TestGoReaderRefForms(t *testing.T) {
	tests := []struct {
		name, body, kind string
		want             []string
	}{
		{"selector chains", "s.db.Query(q); fmt.Println(); f()", RefCall,
			[]string{"Query|db.Query@3", "Println|fmt.Println@3", "f@3"}},
		{"generic instantiation", "Map[int](x); slices.Sort[[]int, int](x)", RefCall,
			[]string{"Map@3", "Sort|slices.Sort@3"}},
		{"index, paren and pointer receivers", "s.items[i].Close(); (*p).Run(); (*T)(v)", RefCall,
			[]string{"Close|items.Close@3", "Run|p.Run@3", "T@3"}},
		// A receiver made by a call has no name; a func literal or a
		// composite type called as a conversion has no callee.
		{"unnamed callees", "NewServer().Run(); func() {}(); []byte(s); f()()", RefCall,
			[]string{"NewServer@3", "Run@3", "f@3"}},
		{"strings", "a := \"x\\ty\"; b := `raw\\n`; c := \"\"; d := 'c'", RefString,
			[]string{"x\ty@3", `raw\n@3`}},
		{"identifiers skip the blank", "_, err := f(_x)", RefIdent,
			[]string{"p@1", "f@3", "err@3", "f@3", "_x@3"}},
		{"type positions", "var m map[string][]*pkg.T; _ = x.(io.Reader); switch x.(type) { case nil, *Y: }; _ = &Z[int]{}", RefType,
			[]string{"string@3", "pkg.T@3", "io.Reader@3", "Y@3", "Z@3", "int@3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p\n\nfunc f() { " + tt.body + " }\n"
			out := goRead(t, "p.go", src)
			if out.Status != ParseClean {
				t.Fatalf("status %q: %s", out.Status, out.Problem)
			}
			if got := goRefsOf(out, tt.kind); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s refs:\n%s", tt.kind, goDiffLines(got, tt.want))
			}
		})
	}
	// Type-set terms and type parameter constraints are type refs.
	out := goRead(t, "p.go", "package p\n\ntype Num interface{ ~int | ~float64 }\n\nfunc Sum[T Num, S ~[]T](s S) T\n")
	want := []string{"int@3", "float64@3", "Num@5", "T@5", "S@5", "T@5"}
	if got := goRefsOf(out, RefType); !reflect.DeepEqual(got, want) {
		t.Errorf("constraint refs:\n%s", goDiffLines(got, want))
	}
}

// goLongSrc returns "package big", a blank line, then head, n copies of
// line and tail, one per line.
func goLongSrc(head []string, n int, line string, tail []string) string {
	lines := append([]string{"package big", ""}, head...)
	for range n {
		lines = append(lines, line)
	}
	return strings.Join(append(lines, tail...), "\n") + "\n"
}

// goOneLineUnits returns a one-line unit for each line of [from, to].
func goOneLineUnits(from, to int) []Unit {
	var us []Unit
	for l := from; l <= to; l++ {
		us = append(us, Unit{StartLine: l, EndLine: l})
	}
	return us
}

func TestGoReaderUnits(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Unit
	}{{
		name: "one unit per declaration, docs included",
		src:  goServerSrc,
		want: []Unit{{1, 11, nil}, {13, 18, nil}, {20, 21, nil}, {23, 28, nil}, {30, 35, nil},
			{37, 40, nil}, {42, 52, nil}, {54, 57, nil}, {59, 65, nil}, {67, 68, nil}},
	}, {
		// Lines 1-2 package, 3-5 doc, 6 func, 7 n := 0, 9 comment, 10 for,
		// 11 n++, 12 if, 13-92 body, 93-94 closers, 95-98 switch,
		// 99 return, 100 }.
		name: "long function splits at statements, recursively",
		src: goLongSrc([]string{
			"// Run does everything.", "//", "//go:generate echo run",
			"func Run(items []string) error {",
			"\tn := 0 // a trailing comment stays on its line",
			"",
			"\t// count the items",
			"\tfor _, it := range items {",
			"\t\tn++",
			"\t\tif len(it) > 0 {",
		}, 80, "\t\t\tn += len(it)", []string{
			"\t\t}", "\t}",
			"\tswitch n {", "\tcase 0:", "\t\treturn nil", "\t}",
			"\treturn nil", "}",
		}),
		want: []Unit{{1, 1, nil}, {3, 100, []Unit{
			{7, 7, nil},
			{9, 94, []Unit{{11, 11, nil}, {12, 93, goOneLineUnits(13, 92)}}},
			{95, 98, nil},
			{99, 99, nil},
		}}},
	}, {
		name: "long table splits at elements",
		src: goLongSrc([]string{
			"// Table lists cases.", "var Table = []string{", "\t// the first case",
		}, 84, "\t\"case\",", []string{"}"}),
		want: []Unit{{1, 1, nil}, {3, 90, append([]Unit{{5, 6, nil}}, goOneLineUnits(7, 89)...)}},
	}, {
		name: "long closure splits at its statements",
		src: goLongSrc([]string{
			`import "testing"`, "",
			"func TestBig(t *testing.T) {",
			"\tt.Run(\"big\", func(t *testing.T) {",
		}, 85, "\t\tt.Log(1)", []string{"\t})", "}"}),
		want: []Unit{{1, 3, nil}, {5, 93, []Unit{{6, 92, goOneLineUnits(7, 91)}}}},
	}, {
		name: "long package doc splits from the clause and imports",
		src:  strings.Repeat("// Doc.\n", 85) + "package big\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n",
		want: []Unit{{1, 88, []Unit{{1, 85, nil}, {86, 86, nil}, {88, 88, nil}}}, {90, 90, nil}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := goRead(t, "big.go", tt.src)
			if out.Status != ParseClean {
				t.Fatalf("status %q: %s", out.Status, out.Problem)
			}
			if got := out.Units; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("units:\n%s", goDiffLines(goFmtUnits(got, ""), goFmtUnits(tt.want, "")))
			}
		})
	}
	out := goRead(t, "big.go", tests[1].src)
	want := goSym{"function", "Run", "big.Run", "", 3, 100, true, "func Run(items []string) error", "Run does everything.", []string{"go:generate"}}
	if got := goSyms(out); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("long function symbol = %+v, want %+v", got, want)
	}
}

func TestGoReaderParseStatus(t *testing.T) {
	tests := []struct {
		name, src       string
		status, problem string
		symbols         []string // qualnames
		units           []Unit
	}{{
		name:    "clean",
		src:     "package p\n\nfunc A() {}\n",
		status:  ParseClean,
		symbols: []string{"p.A"},
		units:   []Unit{{1, 1, nil}, {3, 3, nil}},
	}, {
		// go/parser folds the rest of the file into the broken header; the
		// declarations before it survive.
		name:    "broken parameter list",
		src:     "package broken\n\nimport \"fmt\"\n\n// A is fine.\nfunc A() { fmt.Println(\"a\") }\n\nfunc B( {\n}\n\n// C is lost.\nfunc C() {}\n",
		status:  ParseRepaired,
		problem: "broken.go:8: expected ')', found '{'",
		symbols: []string{"broken.A", "broken.B"},
		units:   []Unit{{1, 3, nil}, {5, 6, nil}, {8, 12, nil}},
	}, {
		// Here the parser's repair swallows the type that follows.
		name:    "broken statement",
		src:     "package broken\n\nfunc A() {\n\tx := \n}\n\ntype T int\n",
		status:  ParseRepaired,
		problem: "broken.go:5: expected operand, found '}'",
		symbols: []string{"broken.A"},
		units:   []Unit{{1, 1, nil}, {3, 7, nil}},
	}, {
		name:    "not Go",
		src:     "<?php echo 1;\n",
		status:  ParseFallback,
		problem: "broken.go:1: expected 'package', found '<'",
	}, {
		name:    "empty",
		src:     "",
		status:  ParseFallback,
		problem: "broken.go:1: expected 'package', found 'EOF'",
	}, {
		name:    "//line directives do not move reported lines",
		src:     "package p\n\n//line other.go:100\nfunc A() {\n\t)\n}\n",
		status:  ParseRepaired,
		problem: "broken.go:5: expected statement, found ')'",
		symbols: []string{"p.A"},
		units:   []Unit{{1, 1, nil}, {3, 6, nil}}, // the directive is A's doc
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := goRead(t, "broken.go", tt.src)
			if out.Status != tt.status || out.Problem != tt.problem {
				t.Errorf("status = %q, %q; want %q, %q", out.Status, out.Problem, tt.status, tt.problem)
			}
			var syms []string
			for _, s := range out.Symbols {
				syms = append(syms, s.Qualname)
			}
			if !reflect.DeepEqual(syms, tt.symbols) {
				t.Errorf("symbols = %q, want %q", syms, tt.symbols)
			}
			if !reflect.DeepEqual(out.Units, tt.units) {
				t.Errorf("units = %v, want %v", out.Units, tt.units)
			}
			if tt.status == ParseFallback && (out.Refs != nil || out.Doc != "") {
				t.Errorf("fallback outline has refs %v, doc %q", out.Refs, out.Doc)
			}
		})
	}
}

func TestGoReaderContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := goReader{}.read(ctx, "p.go", []byte("package p\n"), nil)
	if !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("read(cancelled) = %v, %v; want nil, context.Canceled", out, err)
	}
	if want := "read go p.go: context canceled"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func FuzzGoReader(f *testing.F) {
	f.Add(goServerSrc)
	f.Add("package p\n\nfunc B( {\n}\n")
	f.Add("package p\n\nfunc (s *S[T]) M() { go func() { for { select { case <-c: } } }() }\n")
	f.Add("package p\n//line x.go:1\nvar x = []int{\n1,\n}\n")
	f.Add("")
	f.Add("package")
	f.Fuzz(func(t *testing.T, src string) {
		out, err := goReader{}.read(context.Background(), "f.go", []byte(src), nil)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		check := goSpanChecker(src)
		for i, s := range out.Symbols {
			check(t, s.Qualname, s.StartLine, s.EndLine, s.StartByte, s.EndByte)
			// A method may come before its receiver's type (valid Go,
			// and what the fuzzer found first): the parent may follow,
			// but must exist and the chain must end.
			if s.Parent >= len(out.Symbols) || s.Parent == i {
				t.Errorf("symbol %d has parent %d of %d", i, s.Parent, len(out.Symbols))
			}
			for p, n := s.Parent, 0; p >= 0 && p < len(out.Symbols); p, n = out.Symbols[p].Parent, n+1 {
				if n > len(out.Symbols) {
					t.Fatalf("symbol %d: its parents form a cycle", i)
				}
			}
		}
		for _, r := range out.Refs {
			check(t, r.Kind+" "+r.Name, r.StartLine, r.EndLine, r.StartByte, r.EndByte)
		}
		var walk func([]Unit)
		walk = func(us []Unit) {
			for _, u := range us {
				if u.StartLine < 1 || u.EndLine < u.StartLine {
					t.Errorf("bad unit %+v", u)
				}
				walk(u.Children)
			}
		}
		walk(out.Units)
	})
}

// goCheckSpan checks that a byte span lies in src and starts and ends on
// the lines it claims.
func goCheckSpan(t testing.TB, src, what string, startLine, endLine, startByte, endByte int) {
	t.Helper()
	goSpanChecker(src)(t, what, startLine, endLine, startByte, endByte)
}

// goSpanChecker returns goCheckSpan for src with its line starts indexed
// once, so that checking every ref of a large fuzz input stays linear.
func goSpanChecker(src string) func(t testing.TB, what string, startLine, endLine, startByte, endByte int) {
	starts := []int{0}
	for i := range len(src) {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) }
	return func(t testing.TB, what string, startLine, endLine, startByte, endByte int) {
		t.Helper()
		if startByte < 0 || endByte < startByte || endByte > len(src) || startLine < 1 || endLine < startLine {
			t.Errorf("%s: bad span lines %d-%d bytes %d-%d (len %d)", what, startLine, endLine, startByte, endByte, len(src))
			return
		}
		last := max(startByte, endByte-1)
		if lineOf(startByte) != startLine || (endByte > startByte && lineOf(last) != endLine) {
			t.Errorf("%s: lines %d-%d, bytes %d-%d are on lines %d-%d", what, startLine, endLine, startByte, endByte, lineOf(startByte), lineOf(last))
		}
	}
}

func goFmtSyms(syms []goSym) []string {
	var out []string
	for _, s := range syms {
		out = append(out, fmt.Sprintf("%+v", s))
	}
	return out
}

func goFmtUnits(us []Unit, indent string) []string {
	var out []string
	for _, u := range us {
		out = append(out, fmt.Sprintf("%s%d-%d", indent, u.StartLine, u.EndLine))
		out = append(out, goFmtUnits(u.Children, indent+"  ")...)
	}
	return out
}

// goDiffLines shows got and want side by side, marking the lines that differ.
func goDiffLines(got, want []string) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "! "
		}
		fmt.Fprintf(&b, "%sgot  %s\n%swant %s\n", mark, g, mark, w)
	}
	return b.String()
}
