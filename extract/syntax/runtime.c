// The C side of package syntax: a parse under a budget that the runtime
// itself checks (no call back into Go), and one pass that copies a tree
// into a flat array so that Go never walks the tree through cgo.
#include "runtime.h"

#include <stdatomic.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <time.h>

struct vr_parser {
  TSParser *ts;
  atomic_int cancel;
  int64_t deadline; /* CLOCK_MONOTONIC ns; 0: none */
  int64_t mem_start, mem_limit; /* vr_thread_bytes at the start; limit 0: none */
  int why;
  uint32_t len;                  /* the source's length */
  int64_t stop_at_end, at_end;   /* tests: stop at the stop_at_end-th check past the input's end */
};

// vr_thread_bytes counts the runtime's live heap bytes allocated on this
// thread (minus those freed on it). A parse runs on one thread from start
// to end, so the growth of this counter during a parse is the memory that
// parse holds: the tree and the parse stacks. It is a thread-local, not a
// shared total, so a file's verdict never depends on what other workers
// parse beside it.
static _Thread_local int64_t vr_thread_bytes;

#if defined(__GLIBC__)
#define VR_SIZE(ptr) ((int64_t)malloc_usable_size(ptr))
#else
#define VR_SIZE(ptr) ((int64_t)0) /* growth is then counted, never shrinkage */
#endif

static void *vr_malloc(size_t n) {
  void *ptr = malloc(n);
  if (ptr) vr_thread_bytes += VR_SIZE(ptr) ? VR_SIZE(ptr) : (int64_t)n;
  return ptr;
}

static void *vr_calloc(size_t k, size_t n) {
  void *ptr = calloc(k, n);
  if (ptr) vr_thread_bytes += VR_SIZE(ptr) ? VR_SIZE(ptr) : (int64_t)(k * n);
  return ptr;
}

static void *vr_realloc(void *old, size_t n) {
  int64_t before = old ? VR_SIZE(old) : 0;
  void *ptr = realloc(old, n);
  if (ptr) vr_thread_bytes += (VR_SIZE(ptr) ? VR_SIZE(ptr) : (int64_t)n) - before;
  return ptr;
}

static void vr_free(void *ptr) {
  if (ptr) vr_thread_bytes -= VR_SIZE(ptr);
  free(ptr);
}

static int64_t vr_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

vr_parser *vr_parser_new(void) {
  vr_parser *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->ts = ts_parser_new();
  if (!p->ts) {
    free(p);
    return NULL;
  }
  atomic_init(&p->cancel, 0);
  return p;
}

void vr_parser_delete(vr_parser *p) {
  if (!p) return;
  ts_parser_delete(p->ts);
  free(p);
}

void vr_parser_cancel(vr_parser *p) { atomic_store(&p->cancel, 1); }

void vr_parser_clear(vr_parser *p) { atomic_store(&p->cancel, 0); }

typedef struct {
  const char *src;
  uint32_t len;
} vr_input;

// vr_read hands the parser the rest of the buffer: no copy.
static const char *vr_read(void *payload, uint32_t at, TSPoint pos, uint32_t *n) {
  (void)pos;
  vr_input *in = payload;
  if (at >= in->len) {
    *n = 0;
    return "";
  }
  *n = in->len - at;
  return in->src + at;
}

// vr_progress runs every few hundred parser operations: returning true
// stops the parse.
static bool vr_progress(TSParseState *state) {
  vr_parser *p = state->payload;
  if (atomic_load_explicit(&p->cancel, memory_order_relaxed)) {
    p->why = 1;
    return true;
  }
  if (p->deadline && vr_now() > p->deadline) {
    p->why = 2;
    return true;
  }
  if (p->mem_limit && vr_thread_bytes - p->mem_start > p->mem_limit) {
    p->why = 5;
    return true;
  }
  if (p->stop_at_end && state->current_byte_offset >= p->len && ++p->at_end >= p->stop_at_end) {
    p->why = 1;
    return true;
  }
  return false;
}

void vr_parser_stop_at_end(vr_parser *p, int64_t n) { p->stop_at_end = n; }

static uint32_t vr_node_count(const TSTree *tree) { return ts_node_descendant_count(ts_tree_root_node(tree)); }

TSTree *vr_parse(vr_parser *p, const TSLanguage *lang, const char *src, uint32_t len, int64_t budget_ns,
                 int64_t mem_limit, int *why) {
  *why = 0;
  p->why = 0;
  if (!ts_parser_set_language(p->ts, lang)) {
    *why = 3;
    return NULL;
  }
  p->deadline = budget_ns > 0 ? vr_now() + budget_ns : 0;
  p->mem_start = vr_thread_bytes;
  p->mem_limit = mem_limit;
  p->len = len;
  p->at_end = 0;
  vr_input in = {src, len};
  TSInput input = {&in, vr_read, 0, NULL};
  TSParseOptions opts = {p, vr_progress};
  TSTree *tree = ts_parser_parse_with_options(p->ts, NULL, input, opts);
  // The tree is flattened into a copy of 36 bytes a node (vr_flatten_new)
  // while it still exists: the limit is for both, or a parse stopped just
  // under it took half as much again (a megabyte of nested parentheses:
  // a 96 MB tree and a 50 MB copy).
  if (tree && p->mem_limit &&
      vr_thread_bytes - p->mem_start + (int64_t)vr_node_count(tree) * (int64_t)sizeof(vr_node) > p->mem_limit) {
    ts_tree_delete(tree);
    tree = NULL;
    p->why = 5;
  }
  if (!tree) {
    // A stopped parse would resume on the next call: start afresh, with a
    // new runtime parser. ts_parser_reset is not enough: a parse stopped
    // while it balanced the finished tree leaves a flag that reset does
    // not clear (tree-sitter 0.25, canceled_balancing), and the next parse
    // then resumes a balance whose tree reset freed, failing an assertion
    // that aborts the process.
    TSParser *fresh = ts_parser_new();
    if (fresh) {
      ts_parser_delete(p->ts);
      p->ts = fresh;
    } else {
      ts_parser_reset(p->ts);
    }
    *why = p->why ? p->why : 4;
#if defined(__GLIBC__)
    // A parse stopped for its memory gives that memory back to the system
    // now, not when this thread's malloc arena is next reused.
    if (*why == 5) malloc_trim(0);
#endif
  }
  atomic_store(&p->cancel, 0);
  return tree;
}

static uint32_t vr_flatten(const TSTree *tree, vr_node *out, uint32_t cap) {
  TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
  int32_t parent = -1;
  uint32_t n = 0;
  while (n < cap) {
    TSNode node = ts_tree_cursor_current_node(&c);
    vr_node *o = &out[n];
    TSPoint sp = ts_node_start_point(node), ep = ts_node_end_point(node);
    o->start_byte = ts_node_start_byte(node);
    o->end_byte = ts_node_end_byte(node);
    o->start_row = sp.row;
    o->start_col = sp.column;
    o->end_row = ep.row;
    o->end_col = ep.column;
    o->parent = parent;
    o->symbol = ts_node_symbol(node);
    o->field = ts_tree_cursor_current_field_id(&c);
    o->flags = (ts_node_is_named(node) ? VR_NAMED : 0) | (ts_node_is_missing(node) ? VR_MISSING : 0) |
               (ts_node_has_error(node) ? VR_HAS_ERROR : 0);
    int32_t cur = (int32_t)n++;
    if (ts_tree_cursor_goto_first_child(&c)) {
      parent = cur;
      continue;
    }
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&c)) break;
      if (!ts_tree_cursor_goto_parent(&c)) {
        ts_tree_cursor_delete(&c);
        return n;
      }
      parent = out[parent].parent;
    }
  }
  ts_tree_cursor_delete(&c);
  return n;
}

vr_node *vr_flatten_new(const TSTree *tree, uint32_t *n) {
  uint32_t cap = vr_node_count(tree);
  vr_node *out = malloc((size_t)(cap ? cap : 1) * sizeof *out);
  if (!out) {
    *n = 0;
    return NULL;
  }
  *n = vr_flatten(tree, out, cap);
  return out;
}

void vr_tree_delete(TSTree *tree, uint32_t nodes) {
  ts_tree_delete(tree);
#if defined(__GLIBC__)
  // A big tree's memory goes back to the system rather than waiting in
  // malloc's free lists while the Go nodes are built beside it (50,000
  // nodes: a tree of a few MB; trimming costs well under a millisecond).
  if (nodes > 50000) malloc_trim(0);
#else
  (void)nodes;
#endif
}

void vr_use_libc_allocator(void) {
#if defined(__GLIBC__)
  // cgo calls run on whichever thread the Go scheduler picks, and glibc
  // gives each new thread its own arena, keeping freed tree memory in it:
  // one worker's parses left four arenas of 40-64 MB resident on the
  // adversarial tree (BENCHMARKS.md, "Memory"). Two arenas serve two
  // workers; blocks of 1 MB and more (a flattened tree) are mapped and
  // unmapped on their own instead of raising glibc's sliding threshold;
  // free memory past 4 MB at the top of a heap goes back at once.
  mallopt(M_ARENA_MAX, 2);
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 4 << 20);
#endif
  ts_set_allocator(vr_malloc, vr_calloc, vr_realloc, vr_free);
}

void vr_release_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

int64_t vr_parse_bytes(const vr_parser *p) { return vr_thread_bytes - p->mem_start; }
