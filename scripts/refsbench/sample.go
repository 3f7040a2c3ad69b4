package main

import (
	"encoding/binary"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// sampledKinds are the kinds of definition sampled: functions, methods,
// types (Go structs, interfaces and named types; TypeScript classes,
// interfaces and type aliases; Python classes) and fields (Go struct
// fields, TypeScript properties, Python class and instance attributes).
// Constants, variables, test cases and document sections are left out, and
// so are Go's test entry points (TestX, BenchmarkX, FuzzX, ExampleX in a
// _test.go file), which only the test runner calls.
var sampledKinds = map[string]bool{
	"function": true, "method": true,
	"struct": true, "interface": true, "type": true, "class": true,
	"field": true, "property": true,
}

// The two classes of name the measurement keeps apart.
const (
	classUnique = "unique" // one definition of that name in the repository
	classShared = "shared" // several definitions share the name
)

// candidate is a definition that may be sampled.
type candidate struct {
	Repo string `json:"repo"`
	symbol
	Class string `json:"class"`
	Defs  int    `json:"definitions"` // definitions of that name (any kind) in the repository's language
}

// candidates lists a repository's definitions of the sampled kinds in
// language lang, each classed by how many definitions in that language
// share its exact (case-sensitive) name.
func candidates(repo string, syms []symbol, lang string) []candidate {
	defs := map[string]int{}
	for _, s := range syms {
		if s.Language == lang {
			defs[s.Name]++
		}
	}
	var out []candidate
	for _, s := range syms {
		if s.Language != lang || !sampledKinds[s.Kind] || s.Name == "" || isGoTestEntry(s) {
			continue
		}
		c := candidate{Repo: repo, symbol: s, Defs: defs[s.Name], Class: classUnique}
		if c.Defs > 1 {
			c.Class = classShared
		}
		out = append(out, c)
	}
	return out
}

// isGoTestEntry reports whether s is a function only `go test` calls.
func isGoTestEntry(s symbol) bool {
	if s.Language != "go" || s.Kind != "function" || !strings.HasSuffix(s.Path, "_test.go") {
		return false
	}
	for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if rest, ok := strings.CutPrefix(s.Name, p); ok && (rest == "" || rest[0] == '_' || !unicode.IsLower(rune(rest[0]))) {
			return true
		}
	}
	return false
}

// identity names a candidate by facts of its checkout alone (not by the
// index's ids), so the sample is the same whichever viberag built the
// index.
func (c candidate) identity() string {
	return c.Repo + "\x00" + c.Path + "\x00" + c.Kind + "\x00" + c.Qualname + "\x00" + strconv.Itoa(c.StartLine)
}

// sampleOrder returns the candidates in a seeded random order. Each
// candidate's rank is a hash of the seed and its identity, so the order
// depends on nothing else (not on the order the index listed them, nor on
// the Go version), and a symbol added to a checkout does not reorder the
// others.
func sampleOrder(cs []candidate, seed uint64) []candidate {
	type ranked struct {
		rank uint64
		id   string
		c    candidate
	}
	rs := make([]ranked, len(cs))
	var sb [8]byte
	binary.LittleEndian.PutUint64(sb[:], seed)
	for i, c := range cs {
		h := fnv.New64a()
		h.Write(sb[:])
		id := c.identity()
		h.Write([]byte(id))
		rs[i] = ranked{mix64(h.Sum64()), id, c}
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].rank != rs[j].rank {
			return rs[i].rank < rs[j].rank
		}
		return rs[i].id < rs[j].id
	})
	out := make([]candidate, len(rs))
	for i, r := range rs {
		out[i] = r.c
	}
	return out
}

// mix64 is splitmix64's finaliser: it spreads a change in any bit of an
// FNV hash (whose last bytes barely reach its high bits) over all of them.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
