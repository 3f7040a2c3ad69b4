package embed

import (
	"slices"
	"strings"
)

// trie is a byte trie over vocabulary entries. WordPiece wants, at each
// position of a word, the longest vocabulary entry that is a prefix of the
// rest; one walk down the trie finds it, where probing a map would hash
// every candidate length.
//
// The trie is stored as edges only, and everything a walk needs at a step
// is in the edge it follows: the token id ending there and where the next
// node's edges are. The edges of a node are contiguous and sorted by label,
// so a step usually touches one cache line.
type trie struct {
	edges []trieEdge
	root  [256]int32 // edge index of each first byte, or -1
	dense []int32    // 256-entry child tables of nodes with many children
}

type trieEdge struct {
	label byte
	n     uint16 // children of the node this edge leads to
	id    int32  // token id ending at that node, or -1
	// first is the index of that node's first edge or, when n > maxScan,
	// the number of its table in dense.
	first int32
}

// maxScan is the most children searched linearly; nodes with more get a
// direct table (about 1,300 of them for potion-code-16M: 1.3 MB).
const maxScan = 8

// buildTrie builds a trie of keys (unique) mapping to ids.
func buildTrie(keys []string, ids []int32) trie {
	type pair struct {
		key string
		id  int32
	}
	sorted := make([]pair, len(keys))
	size := 1 // bytes of all keys bound the nodes and edges
	for i, key := range keys {
		sorted[i] = pair{key, ids[i]}
		size += len(key)
	}
	slices.SortFunc(sorted, func(a, b pair) int { return strings.Compare(a.key, b.key) })
	k := make([]string, len(keys))
	v := make([]int32, len(keys))
	for i, p := range sorted {
		k[i], v[i] = p.key, p.id
	}

	// Breadth-first over ranges of sorted keys sharing a prefix of length
	// depth. Each range is a node, reached by edge; visiting it appends its
	// child edges, which keeps them contiguous.
	type span struct {
		lo, hi, depth int
		edge          int32 // -1 for the root
	}
	t := trie{edges: make([]trieEdge, 0, size)}
	var none [256]int32
	for c := range none {
		none[c] = -1
	}
	t.root = none
	queue := make([]span, 1, size)
	queue[0] = span{0, len(k), 0, -1}
	for q := 0; q < len(queue); q++ {
		s := queue[q]
		lo := s.lo
		if lo < s.hi && len(k[lo]) == s.depth {
			if s.edge >= 0 {
				t.edges[s.edge].id = v[lo]
			}
			lo++ // an empty key at the root is never a match
		}
		first := int32(len(t.edges))
		for lo < s.hi {
			c := k[lo][s.depth]
			hi := lo + 1
			for hi < s.hi && k[hi][s.depth] == c {
				hi++
			}
			e := int32(len(t.edges))
			t.edges = append(t.edges, trieEdge{label: c, id: -1})
			if s.edge < 0 {
				t.root[c] = e
			}
			queue = append(queue, span{lo, hi, s.depth + 1, e})
			lo = hi
		}
		if s.edge >= 0 {
			n := int32(len(t.edges)) - first
			t.edges[s.edge].first = first
			t.edges[s.edge].n = uint16(n)
			if n > maxScan {
				table := int32(len(t.dense) / 256)
				t.dense = append(t.dense, none[:]...)
				for e := first; e < first+n; e++ {
					t.dense[int(table)*256+int(t.edges[e].label)] = e
				}
				t.edges[s.edge].first = table
			}
		}
	}
	return t
}

// find returns the index of the edge labelled c among the children of a
// node with n children and first as described in trieEdge, or -1.
func (t *trie) find(first int32, n uint16, c byte) int32 {
	if n > maxScan {
		return t.dense[int(first)<<8|int(c)]
	}
	for e := first; e < first+int32(n); e++ {
		if t.edges[e].label == c {
			return e
		}
	}
	return -1
}

// longest returns the byte length and id of the longest non-empty key that
// is a prefix of s; n is 0 when there is none.
func (t *trie) longest(s []byte) (n int, id int32) {
	id = -1
	if len(s) == 0 {
		return 0, -1
	}
	e := t.root[s[0]]
	for i := 1; e >= 0; i++ {
		edge := &t.edges[e]
		if edge.id >= 0 {
			n, id = i, edge.id
		}
		if i == len(s) || edge.n == 0 {
			break
		}
		e = t.find(edge.first, edge.n, s[i])
	}
	return n, id
}

// exact returns the id of key, or -1.
func (t *trie) exact(key string) int32 {
	if key == "" {
		return -1
	}
	e := t.root[key[0]]
	for i := 1; e >= 0 && i < len(key); i++ {
		edge := &t.edges[e]
		if edge.n == 0 {
			return -1
		}
		e = t.find(edge.first, edge.n, key[i])
	}
	if e < 0 {
		return -1
	}
	return t.edges[e].id
}
