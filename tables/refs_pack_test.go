package tables

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestRefsGroupsRoundTrip: a refs.groups stream gives back each group's
// kind, name, target and uses (as packUses encodes them), in order; every
// truncation of it is reported as damage, never misread.
func TestRefsGroupsRoundTrip(t *testing.T) {
	type group struct {
		kind         int64
		name, target string
		uses         []refUse
	}
	in := []group{
		{2, "Read", "c.Read", []refUse{{10, 1}, {3, 0}, {10, 2}, {400, 7}}},
		{3, "err", "", []refUse{{1, 0}}},
		{1, "fmt", "fmt", []refUse{{2, 0}}},
		{4, "Ärger", "", []refUse{{70000, 300}, {70001, 300}}},
		{3, "", "", nil},
	}
	var e refsEncoder
	e.reset()
	for _, g := range in {
		e.add(g.kind, g.name, g.target, slices.Clone(g.uses))
	}
	b := e.appendTo(nil)
	var got []group
	if err := eachRefGroup(b, func(g storedGroup) bool {
		uses, err := unpackUses(nil, g.uses(), g.n)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		got = append(got, group{g.kind, g.name, g.target, uses})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("decoded %d groups, want %d", len(got), len(in))
	}
	for i, g := range in {
		want := slices.Clone(g.uses)
		slices.SortStableFunc(want, func(a, b refUse) int { return a.line - b.line })
		if got[i].kind != g.kind || got[i].name != g.name || got[i].target != g.target || !slices.Equal(got[i].uses, want) {
			t.Errorf("group %d = %+v, want %+v with uses %v", i, got[i], g, want)
		}
		if packed := packUses(slices.Clone(g.uses)); len(want) > 0 && string(packed) != string(packUses(got[i].uses)) {
			t.Errorf("group %d: uses differ from packUses", i)
		}
	}
	for n := range len(b) {
		err := eachRefGroup(b[:n], func(storedGroup) bool { return true })
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("stream cut to %d of %d bytes: error %v, want ErrDamaged", n, len(b), err)
		}
	}
	if err := eachRefGroup(append(slices.Clone(b), 0), func(storedGroup) bool { return true }); !errors.Is(err, ErrDamaged) {
		t.Errorf("stream with a trailing byte: error %v, want ErrDamaged", err)
	}
}

// FuzzStoredLists feeds arbitrary bytes, as a damaged index would hold
// them, to the decoders of the lists the index stores in blobs besides
// its postings (package postings fuzzes those): a refs.groups stream and
// a sources.decls blob. Each answers or reports ErrDamaged; none panics
// or loops past its input.
func FuzzStoredLists(f *testing.F) {
	var e refsEncoder
	e.reset()
	e.add(2, "Read", "c.Read", []refUse{{10, 1}, {3, 0}})
	e.add(3, "err", "", []refUse{{1, 0}})
	f.Add(e.appendTo(nil))
	f.Add(declsOf(f, 3, [][2]string{{"func A()", "A does."}, {"type B struct", ""}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		damaged := func(what string, err error) {
			t.Helper()
			if err != nil && !errors.Is(err, ErrDamaged) {
				t.Errorf("%s %x: error %v, want ErrDamaged", what, b, err)
			}
		}
		err := eachRefGroup(b, func(g storedGroup) bool {
			if _, err := unpackUses(nil, g.uses(), g.n); err != nil {
				t.Errorf("group %q: its uses do not unpack after the stream decoded: %v", g.name, err)
			}
			return true
		})
		damaged("refs.groups", err)

		var dr declsReader
		for id := int64(0); id < 40; id += 3 {
			_, _, err := dr.declByID(1, b, id)
			damaged("sources.decls", err)
		}
		var z decompressor
		_ = checkDeclsBlob(&z, b, 2, 3, 4) // a problem for Check to report, or none; never a panic

	})
}

// TestUnpackRefsAt: unpacking with only the symbols RefSymbolKeys names
// gives the rows of unpacking with every symbol of the files: the
// enclosing symbol of each use, a definition's own name (an identifier
// inside its symbol, any use on the line a symbol of the name starts),
// imports by target, and symbol filters.
func TestUnpackRefsAt(t *testing.T) {
	syms := map[int64][]RefSymbol{
		1: {{Name: "Dial", Qualname: "Dial", Start: 3, Admitted: true}, {Name: "helper", Qualname: "helper", Start: 10},
			{Name: "Run", Qualname: "T.Run", Start: 20, Admitted: true}, {Name: "dial", Qualname: "T.dial", Start: 30, Admitted: true},
			{Name: "Dial", Qualname: "T.Dial", Start: 12, Admitted: true}},
		2: {{Name: "main", Qualname: "main", Start: 1}, {Name: "Dial", Qualname: "x.Dial", Start: 7, Admitted: true}},
	}
	groups := []RefGroup{
		{FileID: 1, Path: "a.go", Kind: "call", Name: "Dial", Uses: packUses([]refUse{{3, 1}, {12, 2}, {21, 3}, {40, 0}}), N: 4},
		{FileID: 1, Path: "a.go", Kind: "ident", Name: "Dial", Uses: packUses([]refUse{{4, 1}, {22, 3}}), N: 2},
		{FileID: 1, Path: "a.go", Kind: "call", Name: "dial", Uses: packUses([]refUse{{30, 4}, {31, 4}}), N: 2},
		{FileID: 2, Path: "b.go", Kind: "call", Name: "Dial", Uses: packUses([]refUse{{2, 1}, {7, 2}, {9, 7}}), N: 3},
		{FileID: 2, Path: "b.go", Kind: "import", Name: "d", Target: "Dial", ByTarget: true, Uses: packUses([]refUse{{7, 0}}), N: 1},
	}
	ords, lines, err := RefSymbolKeys(groups)
	if err != nil {
		t.Fatal(err)
	}
	var at []RefSymbolAt
	for _, k := range ords {
		if fs := syms[k.File]; k.N < len(fs) {
			at = append(at, RefSymbolAt{File: k.File, Ord: k.N, RefSymbol: fs[k.N]})
		}
	}
	for _, k := range lines {
		for i, s := range syms[k.File] {
			if s.Start == k.N {
				at = append(at, RefSymbolAt{File: k.File, Ord: i, RefSymbol: s})
			}
		}
	}
	for _, filters := range []bool{false, true} {
		want, err := UnpackRefs(groups, syms, filters)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnpackRefsAt(groups, at, filters)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("symbol filters %v:\n got %+v\nwant %+v", filters, got, want)
		}
		if len(want) < 3 {
			t.Errorf("symbol filters %v: %d rows; the case needs more", filters, len(want))
		}
	}
}

// A refGroups reused over many dense files keeps at most maxKeptRefBytes
// for the next one, and none of the previous files' strings: kept whole,
// each pooled group's uses at the largest capacity it ever had grew with
// every file (the groups of one file reused for the keys of another).
func TestRefGroupsKeepBounded(t *testing.T) {
	var g refGroups
	const keys = 5_000
	for file := range 12 {
		g.reset()
		for k := range keys {
			name := fmt.Sprintf("f%d_k%d", file, k)
			for u := range 1 + (k*7+file*13)%61 {
				g.add(refKey{kind: "call", name: name}, u+1, 0, false)
			}
		}
		if len(g.order) != keys {
			t.Fatalf("file %d: %d groups, want %d", file, len(g.order), keys)
		}
	}
	g.reset()
	kept := 0
	for _, grp := range g.pool {
		kept += 136 + 16*cap(grp.uses)
		if grp.key != (refKey{}) || len(grp.uses) != 0 {
			t.Fatalf("a pooled group keeps %+v, %d uses", grp.key, len(grp.uses))
		}
	}
	if kept > maxKeptRefBytes || len(g.order) != 0 || len(g.byKey) != 0 {
		t.Fatalf("after 12 files: %d bytes kept (bound %d), %d groups in order, %d keys", kept, maxKeptRefBytes, len(g.order), len(g.byKey))
	}
	// A small file's groups are kept for reuse.
	g.add(refKey{kind: "call", name: "a"}, 1, 0, false)
	g.add(refKey{kind: "call", name: "b"}, 2, 0, false)
	g.reset()
	if len(g.pool) != 2 {
		t.Fatalf("after a small file: %d groups pooled, want 2", len(g.pool))
	}
}
