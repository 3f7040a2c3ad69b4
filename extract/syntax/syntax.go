package syntax

/*
#cgo CFLAGS: -std=c11 -O2
#include "runtime.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	"golang.org/x/sync/semaphore"
)

// Language is one grammar with its node kinds and field names as lookup
// tables, built once: a node's kind is a slice index, not a cgo call.
type Language struct {
	name    string
	ptr     unsafe.Pointer // const TSLanguage*
	kinds   []string       // by symbol id
	fields  []string       // by field id; [0] is ""
	fieldID map[string]uint16
}

// errorSymbol is the symbol of ERROR nodes (ts_builtin_sym_error).
const errorSymbol = 0xFFFF

// NewLanguage builds a Language from the pointer a grammar's Go binding
// returns (for example tree_sitter_python.Language()). It fails when the
// grammar's ABI is outside what the runtime supports.
func NewLanguage(name string, ptr unsafe.Pointer) (*Language, error) {
	if ptr == nil {
		return nil, fmt.Errorf("grammar %s: nil language", name)
	}
	l := sitter.NewLanguage(ptr)
	if abi := l.AbiVersion(); abi < sitter.MIN_COMPATIBLE_LANGUAGE_VERSION || abi > sitter.LANGUAGE_VERSION {
		return nil, fmt.Errorf("grammar %s: ABI %d, runtime supports %d–%d", name, abi, sitter.MIN_COMPATIBLE_LANGUAGE_VERSION, sitter.LANGUAGE_VERSION)
	}
	lang := &Language{name: name, ptr: ptr, fieldID: map[string]uint16{}}
	n := l.NodeKindCount()
	lang.kinds = make([]string, n)
	for id := uint32(0); id < n; id++ {
		lang.kinds[id] = l.NodeKindForId(uint16(id))
	}
	f := l.FieldCount()
	lang.fields = make([]string, f+1)
	for id := uint32(1); id <= f; id++ {
		name := l.FieldNameForId(uint16(id))
		lang.fields[id] = name
		lang.fieldID[name] = uint16(id)
	}
	return lang, nil
}

// MustLanguage is NewLanguage for grammars compiled into the binary, where
// a refusal is a build defect.
func MustLanguage(name string, ptr unsafe.Pointer) *Language {
	l, err := NewLanguage(name, ptr)
	if err != nil {
		panic(err)
	}
	return l
}

// Kind returns the name of a node kind.
func (l *Language) Kind(symbol uint16) string {
	if symbol == errorSymbol {
		return "ERROR"
	}
	if int(symbol) < len(l.kinds) {
		return l.kinds[symbol]
	}
	return ""
}

// SymbolCount is the number of node kinds; kind ids run below it (and
// ERROR is 0xFFFF).
func (l *Language) SymbolCount() int { return len(l.kinds) }

// FieldID returns the id of a field name, 0 when the grammar has none.
func (l *Language) FieldID(name string) uint16 { return l.fieldID[name] }

// Stop reasons of a parse that returned no tree.
var (
	// ErrBudget: the parse ran past its budget.
	ErrBudget = errors.New("parse over budget")
	// ErrNoTree: the runtime returned no tree for another reason.
	ErrNoTree = errors.New("parser returned no tree")
	// ErrMemory: the parse would hold more than its limit (MaxParseMemory,
	// or in a Pool the share it reserved); the error returned wraps it
	// and names the limit.
	ErrMemory = errors.New("parse over its memory limit")
)

// MaxParseMemory bounds the runtime's heap for one parse (its tree and
// stacks, then the tree with the flat copy flatten makes of it), and in a
// Pool for all its parses together; counted by the allocator on the
// parsing thread and checked by the runtime every few hundred operations.
// Real source needs a fraction of it (the largest of 1,385 files of
// 32 KB–1 MB took 40 MB, and none of 57,488 files of the broad benchmark
// and GOROOT/src reaches it; BENCHMARKS.md "Memory"); only dense
// machine-made input — a megabyte of `1,1,1,…` needs 200 MB — does. At
// 96 MB, such a parse beside the index run's Go heap took the run past
// 300 MB resident.
const MaxParseMemory = 64 << 20

func init() {
	// go-tree-sitter routes every allocation of the runtime through Go
	// callbacks (two cgo crossings each); both end in libc malloc, so
	// pointing the runtime at libc directly changes no owner and halves
	// the parse time (BENCHMARKS.md, "Parser runtime"). It runs after
	// go-tree-sitter's own init, which sets its allocator.
	UseLibcAllocator()
}

// Parser is one tree-sitter parser. It is not safe for concurrent use;
// a Pool hands parsers to workers. Close it when done.
type Parser struct {
	p *C.vr_parser
	// stuck is set when a parse ran so far past its budget that it was
	// abandoned: a grammar's C scanner can loop without ever reaching the
	// runtime's budget check. Its thread is left to the loop; the parser
	// is never used or freed again.
	stuck bool
}

// abandonAfter is how long past its budget (or its context's end) a parse
// may run before it is abandoned.
const abandonAfter = 2 * time.Second

// ErrStuck: the parse did not return within its budget plus abandonAfter
// and was abandoned; the parser is unusable.
var ErrStuck = errors.New("parser stuck past its budget (a grammar's scanner looping); abandoned")

// NewParser returns a parser; Close releases it.
func NewParser() *Parser {
	p := C.vr_parser_new()
	if p == nil {
		panic("syntax: out of memory for a parser")
	}
	return &Parser{p: p}
}

// stopAtEnd makes p's parses stop as if cancelled at the n-th progress
// check past the end of the input (0: never). For tests: the checks past
// the end are the final balancing of the tree.
func (p *Parser) stopAtEnd(n int) { C.vr_parser_stop_at_end(p.p, C.int64_t(n)) }

// Close releases the parser. Closing twice is harmless; a stuck parser is
// never freed (its C code may still be running).
func (p *Parser) Close() {
	if p.p != nil && !p.stuck {
		C.vr_parser_delete(p.p)
		p.p = nil
	}
}

// Parse parses src with lang. It stops when ctx is done (returning ctx's
// error), when it runs past budget (ErrBudget; budget 0: only ctx
// bounds it) or when it would hold more than MaxParseMemory (ErrMemory).
// The tree it returns lives in Go memory: the runtime's tree is released
// before Parse returns, so no node can outlive its C tree.
func (p *Parser) Parse(ctx context.Context, lang *Language, src []byte, budget time.Duration) (*Tree, error) {
	return p.parse(ctx, lang, src, budget, MaxParseMemory)
}

// parse is Parse with a memory limit of its own.
func (p *Parser) parse(ctx context.Context, lang *Language, src []byte, budget time.Duration, memLimit int64) (*Tree, error) {
	if p.p == nil {
		return nil, errors.New("syntax: parse with a closed parser")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(src) > 1<<31 {
		return nil, fmt.Errorf("syntax: source of %d bytes is too large", len(src))
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		if left <= 0 {
			return nil, context.DeadlineExceeded
		}
		if budget <= 0 || left < budget {
			budget = left
		}
	}
	// The cancel func runs on its own goroutine; if it has started, wait
	// for it and clear its flag, or it would cancel this parser's next
	// parse.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { C.vr_parser_cancel(p.p); close(fired) })
	var srcPtr *C.char
	if len(src) > 0 {
		srcPtr = (*C.char)(unsafe.Pointer(&src[0]))
	}
	// The parse runs on its own goroutine so that a parse that never
	// returns (a grammar scanner's endless loop, which the runtime's
	// progress check cannot see) can be abandoned instead of hanging the
	// caller.
	done := make(chan parseResult, 1)
	cp := p.p
	go func() {
		var why C.int
		tree := C.vr_parse(cp, (*C.TSLanguage)(lang.ptr), srcPtr, C.uint32_t(len(src)), C.int64_t(budget.Nanoseconds()), C.int64_t(memLimit), &why)
		runtime.KeepAlive(src)
		done <- parseResult{tree, why}
	}()
	var watchdog <-chan time.Time
	if budget > 0 {
		t := time.NewTimer(budget + abandonAfter)
		defer t.Stop()
		watchdog = t.C
	}
	var r parseResult
	select {
	case r = <-done:
	case <-watchdog:
		return nil, p.abandon(done, stop, fired)
	case <-ctx.Done():
		t := time.NewTimer(abandonAfter)
		defer t.Stop()
		select {
		case r = <-done:
		case <-t.C:
			return nil, p.abandon(done, stop, fired)
		}
	}
	tree, why := r.tree, r.why
	if !stop() {
		<-fired
		C.vr_parser_clear(p.p)
	}
	if tree == nil {
		switch why {
		case 1:
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, context.Canceled
		case 2:
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, ErrBudget
		case 3:
			return nil, fmt.Errorf("grammar %s: refused by the runtime", lang.name)
		case 5:
			return nil, fmt.Errorf("%w of %d MB", ErrMemory, memLimit>>20)
		default:
			return nil, ErrNoTree
		}
	}
	return flatten(lang, tree), nil
}

// parseResult is what a parse returned.
type parseResult struct {
	tree *C.TSTree
	why  C.int
}

// abandon marks p stuck and leaves a goroutine to free the tree and the
// parser should the C code ever return.
func (p *Parser) abandon(done <-chan parseResult, stop func() bool, fired <-chan struct{}) error {
	p.stuck = true
	cp := p.p
	if !stop() {
		<-fired // the cancel func must be done with cp before cp can be freed
	}
	go func() {
		r := <-done
		if r.tree != nil {
			C.ts_tree_delete(r.tree)
		}
		C.vr_parser_delete(cp)
	}()
	return ErrStuck
}

// flatten copies tree into Go memory and deletes it. The flat array is
// C memory, freed as soon as the Go nodes are built: it never weighs on
// the Go heap, and the C tree is gone before the Go nodes exist.
func flatten(lang *Language, tree *C.TSTree) *Tree {
	var n C.uint32_t
	raw := C.vr_flatten_new(tree, &n)
	C.vr_tree_delete(tree, n)
	if raw == nil {
		return build(lang, nil)
	}
	defer C.free(unsafe.Pointer(raw))
	return build(lang, unsafe.Slice(raw, int(n)))
}

// Pool hands out at most size parsers, one per worker, and closes them all
// on Close. Unlike a sync.Pool it never drops a parser without closing it.
//
// The pool's parses share one budget of runtime memory, MaxParseMemory.
// A parse reserves its share before it starts, by the size of its source
// (parseShare), and is stopped with ErrMemory past it: whatever the
// workers parse side by side, the runtime holds at most MaxParseMemory
// for all of them, where a limit per parse alone let two dense files
// take twice that.
type Pool struct {
	mu     sync.Mutex
	free   []*Parser
	made   int // parsers created and not dropped as stuck
	slots  chan struct{}
	closed bool

	mem      *semaphore.Weighted // MaxParseMemory, shared by the parses
	heldMu   sync.Mutex
	held     int64 // reserved by parses under way
	reserved func(int64)
}

// PoolOptions configure a Pool.
type PoolOptions struct {
	// Reserved, when set, is told the bytes of runtime memory that the
	// pool's parses hold reserved each time that total changes: before a
	// parse starts and once the memory of its tree is freed (after Parse
	// has built the Go copy). Calls are serialised, and the parse waits
	// for them: a caller can make room (the Go heap's limit) before the
	// runtime takes it.
	Reserved func(bytes int64)
}

// NewPool returns a pool of up to size parsers (at least 1).
func NewPool(size int, opts PoolOptions) *Pool {
	size = max(size, 1)
	return &Pool{slots: make(chan struct{}, size), mem: semaphore.NewWeighted(MaxParseMemory), reserved: opts.Reserved}
}

// Shares of the pool's memory: real source peaks at 25 bytes of runtime
// heap per byte (median) and at most 80, over 1,385 files of 32 KB–1 MB
// from 120 repositories (BENCHMARKS.md, "Memory"); a share is 128 bytes
// per byte, at least parseShareMin, at most MaxParseMemory. A file of
// 512 KB or more parses alone.
const (
	parseSharePerByte = 128
	parseShareMin     = 8 << 20
)

func parseShare(n int) int64 {
	return min(max(int64(n)*parseSharePerByte, parseShareMin), MaxParseMemory)
}

// Parse waits for the source's share of the pool's memory and for a
// parser, then parses like Parser.Parse, under that share.
func (pl *Pool) Parse(ctx context.Context, lang *Language, src []byte, budget time.Duration) (*Tree, error) {
	share := parseShare(len(src))
	if err := pl.mem.Acquire(ctx, share); err != nil {
		return nil, err
	}
	pl.hold(share)
	// A parse abandoned as stuck gives its share back too: its thread may
	// still hold memory, but a share never returned would stop the run.
	defer func() {
		pl.hold(-share)
		pl.mem.Release(share)
	}()
	p, err := pl.get(ctx)
	if err != nil {
		return nil, err
	}
	defer pl.put(p)
	return p.parse(ctx, lang, src, budget, share)
}

// hold adds delta to the reserved total and tells opts.Reserved.
func (pl *Pool) hold(delta int64) {
	if pl.reserved == nil {
		return
	}
	pl.heldMu.Lock()
	defer pl.heldMu.Unlock()
	pl.held += delta
	pl.reserved(pl.held)
}

func (pl *Pool) get(ctx context.Context) (*Parser, error) {
	select {
	case pl.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.closed {
		<-pl.slots
		return nil, errors.New("syntax: parser pool is closed")
	}
	if n := len(pl.free); n > 0 {
		p := pl.free[n-1]
		pl.free = pl.free[:n-1]
		return p, nil
	}
	pl.made++
	return NewParser(), nil
}

func (pl *Pool) put(p *Parser) {
	pl.mu.Lock()
	if p.stuck {
		pl.made-- // never reused: the next get makes a new parser in its place
	} else if pl.closed {
		p.Close()
	} else {
		pl.free = append(pl.free, p)
	}
	pl.mu.Unlock()
	<-pl.slots
}

// Close closes every idle parser; parsers in use are closed when they
// come back. Parse after Close fails.
func (pl *Pool) Close() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.closed {
		return
	}
	pl.closed = true
	for _, p := range pl.free {
		p.Close()
	}
	pl.free = nil
}

// Size reports how many parsers the pool has created.
func (pl *Pool) Size() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.made
}

// Lazy returns a function that builds the Language of a grammar binding
// on first use, so a binary pays for the grammars it actually reads.
func Lazy(name string, ptr func() unsafe.Pointer) func() *Language {
	return sync.OnceValue(func() *Language { return MustLanguage(name, ptr()) })
}

// UseLibcAllocator points the runtime's allocations at libc directly, as
// this package does at start-up; for benchmarks that switch allocators.
func UseLibcAllocator() { C.vr_use_libc_allocator() }

// ReleaseMemory gives the free pages of the process's C heap back to the
// system (glibc's malloc_trim; elsewhere it does nothing). The parsers and
// SQLite share that heap, and glibc returns little of what they free on
// its own: after the batches of an index run of dense files its arenas
// kept 85–130 MB of freed pages resident.
func ReleaseMemory() { C.vr_release_memory() }
