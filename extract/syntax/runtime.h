// The part of tree-sitter's C API (lib/include/tree_sitter/api.h, ABI 15,
// runtime v0.25) that this package calls, declared here because cgo cannot
// name another module's include directory. The definitions are compiled by
// github.com/tree-sitter/go-tree-sitter, which this package imports; the
// struct layouts are checked against that package's own in layout_test.go.
#ifndef VIBERAG_SYNTAX_RUNTIME_H
#define VIBERAG_SYNTAX_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;

typedef struct TSPoint {
  uint32_t row;
  uint32_t column;
} TSPoint;

typedef struct TSNode {
  uint32_t context[4];
  const void *id;
  const TSTree *tree;
} TSNode;

typedef struct TSTreeCursor {
  const void *tree;
  const void *id;
  uint32_t context[3];
} TSTreeCursor;

typedef uint32_t (*DecodeFunction)(const uint8_t *string, uint32_t length, int32_t *code_point);

typedef struct TSInput {
  void *payload;
  const char *(*read)(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read);
  int encoding; /* TSInputEncodingUTF8 = 0 */
  DecodeFunction decode;
} TSInput;

typedef struct TSParseState {
  void *payload;
  uint32_t current_byte_offset;
  bool has_error;
} TSParseState;

typedef struct TSParseOptions {
  void *payload;
  bool (*progress_callback)(TSParseState *state);
} TSParseOptions;

TSParser *ts_parser_new(void);
void ts_parser_delete(TSParser *self);
bool ts_parser_set_language(TSParser *self, const TSLanguage *language);
TSTree *ts_parser_parse_with_options(TSParser *self, const TSTree *old_tree, TSInput input, TSParseOptions parse_options);
void ts_parser_reset(TSParser *self);
void ts_tree_delete(TSTree *self);
TSNode ts_tree_root_node(const TSTree *self);
TSSymbol ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
TSPoint ts_node_start_point(TSNode self);
TSPoint ts_node_end_point(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_missing(TSNode self);
bool ts_node_has_error(TSNode self);
uint32_t ts_node_descendant_count(TSNode self);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
void ts_set_allocator(void *(*new_malloc)(size_t), void *(*new_calloc)(size_t, size_t),
                      void *(*new_realloc)(void *, size_t), void (*new_free)(void *));

// This package's own C side (runtime.c).

enum {
  VR_NAMED = 1,
  VR_MISSING = 2,
  VR_HAS_ERROR = 4,
};

// vr_node is one node of a flattened tree, in pre-order.
typedef struct vr_node {
  uint32_t start_byte, end_byte;
  uint32_t start_row, start_col, end_row, end_col;
  int32_t parent;
  uint16_t symbol;
  uint16_t field;
  uint32_t flags;
} vr_node;

// vr_parser is a tree-sitter parser with its cancellation flag.
typedef struct vr_parser vr_parser;

vr_parser *vr_parser_new(void);
void vr_parser_delete(vr_parser *p);
void vr_parser_cancel(vr_parser *p);
void vr_parser_clear(vr_parser *p);
// vr_parser_stop_at_end makes the parser's parses stop (as if cancelled) at
// the n-th progress check past the end of the input (0: never): tests stop
// parses inside the final balancing of the tree with it.
void vr_parser_stop_at_end(vr_parser *p, int64_t n);
// vr_parse parses src[0:len) under a budget in nanoseconds and a limit on
// the bytes the runtime may hold for it (0: none), the tree's flat copy
// (vr_flatten_new) included, and returns the tree, or
// NULL when cancelled, over a budget or refused; *why is then 1
// (cancelled), 2 (time budget), 3 (language refused), 4 (no tree) or 5
// (memory limit).
TSTree *vr_parse(vr_parser *p, const TSLanguage *lang, const char *src, uint32_t len, int64_t budget_ns,
                 int64_t mem_limit, int *why);
// vr_flatten_new flattens tree into an array from malloc (the caller frees
// it) and stores its length in *n; NULL when out of memory.
vr_node *vr_flatten_new(const TSTree *tree, uint32_t *n);
// vr_tree_delete deletes a tree of the given size, returning the memory of
// a big one to the system.
void vr_tree_delete(TSTree *tree, uint32_t nodes);
// vr_release_memory gives the C heap's free pages back to the system.
void vr_release_memory(void);
// vr_use_libc_allocator points the runtime at libc's allocator through
// thin wrappers that count each thread's live bytes (vr_parse's limit).
void vr_use_libc_allocator(void);

#endif
