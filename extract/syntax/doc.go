// Package syntax owns the tree-sitter runtime: the official C library as
// built by github.com/tree-sitter/go-tree-sitter, driven through a few
// calls of its C API (runtime.h, runtime.c).
//
// It does three things and nothing else:
//
//   - Language: a grammar (from its own Go binding) with its node kinds and
//     fields as lookup tables built once.
//   - Parser and Pool: a parse under a budget and a context, both checked
//     by the runtime itself through its progress callback (no call back
//     into Go); a stopped parser is reset; a Pool hands one parser to each
//     worker and closes them all.
//   - Tree and Node: the parsed tree copied into Go memory in one C pass.
//     Walking it costs no cgo call and no allocation, nodes compare by
//     pointer, and since the C tree is freed before Parse returns, no node
//     can be used after its tree was closed.
//
// Reading facts out of trees is package extract's job.
package syntax
