package tables

import (
	"errors"
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

// TestPostingsRoundTrip: posting lists give back their ids; a list that
// repeats an id is damage.
func TestPostingsRoundTrip(t *testing.T) {
	for _, ids := range [][]int64{nil, {1}, {1, 2, 3}, {5, 300, 70000, 1 << 40}} {
		got, err := decodePostings(nil, appendPostings(nil, ids))
		if err != nil || !slices.Equal(got, ids) {
			t.Errorf("round trip of %v = %v, %v", ids, got, err)
		}
	}
	if _, err := decodePostings(nil, []byte{3, 0}); !errors.Is(err, ErrDamaged) {
		t.Errorf("repeated id: error %v, want ErrDamaged", err)
	}
	if _, err := decodePostings(nil, []byte{0x80}); !errors.Is(err, ErrDamaged) {
		t.Errorf("cut varint: error %v, want ErrDamaged", err)
	}
}

// FuzzStoredLists feeds arbitrary bytes, as a damaged index would hold
// them, to the decoders of the lists schema 6 stores in blobs: a
// refs.groups stream, a ref_keys posting list, a trigram posting and a
// trigram block header. Each answers or reports ErrDamaged; none panics,
// loops past its input or returns ids out of order.
func FuzzStoredLists(f *testing.F) {
	var e refsEncoder
	e.reset()
	e.add(2, "Read", "c.Read", []refUse{{10, 1}, {3, 0}})
	e.add(3, "err", "", []refUse{{1, 0}})
	f.Add(e.appendTo(nil))
	f.Add(appendPostings(nil, []int64{1, 5, 300, 70000}))
	f.Add(appendPosting(nil, []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9}))
	f.Add(appendPosting(nil, []uint32{7, 900, 70000}))
	f.Add([]byte{2, 1, 3, 2, 1, 'a', 'b', 'c', 'd', 'e'})
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

		ids, err := decodePostings(nil, b)
		damaged("ref_keys posting list", err)
		if err == nil && !slices.IsSorted(ids) {
			t.Errorf("ref_keys posting list %x decodes to %v, not ascending", b, ids)
		}

		tris, err := decodePosting(nil, b)
		damaged("trigram posting", err)
		if err == nil && !slices.IsSorted(tris) {
			t.Errorf("trigram posting %x decodes to %v, not ascending", b, tris)
		}

		entries, err := parseBlock(b, 0, nil)
		damaged("trigram block", err)
		for _, en := range entries {
			if en.start < 0 || en.start > en.end || en.end > len(b) {
				t.Errorf("trigram block %x: entry %+v outside the block", b, en)
			}
		}
	})
}
