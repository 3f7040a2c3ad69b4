package indexer

import (
	"context"

	"golang.org/x/sync/semaphore"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/extract/syntax"
)

// The facts of a parsed file wait in memory until the writer commits
// them, and the parser outruns the writer on dense input (a megabyte of
// tiny functions is 40,000 symbols and 200,000 refs). pending bounds the
// bytes extracted and not yet written: a worker takes a file's weight
// before handing it on and the writer gives it back once the batch that
// holds the file is committed, so a slow write holds the parsers back
// instead of letting extracted files pile up.
//
// A file's weight is its prepared rows' bytes (tables.Prepared.Bytes)
// when the sink takes files prepared, as *tables.Writer does: the worker
// prepares the file and drops its facts before taking the weight. Other
// sinks hold the facts (factWeight).
//
// No deadlock: the writer flushes whenever its batch holds batchWeight of
// pending (or of facts), so what it holds unflushed stays under
// batchWeight, and pendingLimit leaves room beside that for the heaviest
// file (maxFileWeight).
const (
	batchWeight   = 16 << 20
	maxFileWeight = 32 << 20
	pendingLimit  = batchWeight + maxFileWeight
)

type pending struct{ sem *semaphore.Weighted }

// parseMemory bounds what the workers' files hold at once from the start
// of their parse until their facts are extracted. The runtime's memory is
// bounded by the parser pool (syntax.Pool); this bounds the Go side: a
// tree's Go copy (72 bytes a node) and the facts read from it. A file's
// share is predicted from its size, so small files parse side by side
// while a file big enough to need the whole limit is extracted alone.
type parseMemory struct{ sem *semaphore.Weighted }

const parseBytesPerByte = 64

func newParseMemory() *parseMemory {
	return &parseMemory{sem: semaphore.NewWeighted(syntax.MaxParseMemory)}
}

// acquire waits until a file of size bytes may parse and returns its
// weight, for release once the file's facts are in pending.
func (m *parseMemory) acquire(ctx context.Context, size int64) (int64, error) {
	w := min(max(size*parseBytesPerByte, 1), syntax.MaxParseMemory)
	if err := m.sem.Acquire(ctx, w); err != nil {
		return 0, err
	}
	return w, nil
}

func (m *parseMemory) release(w int64) {
	if w > 0 {
		m.sem.Release(w)
	}
}

func newPending() *pending { return &pending{sem: semaphore.NewWeighted(pendingLimit)} }

// acquire waits until a file of weight w fits and returns the weight it
// took, for release.
func (p *pending) acquire(ctx context.Context, w int64) (int64, error) {
	w = min(max(w, 1), maxFileWeight)
	if err := p.sem.Acquire(ctx, w); err != nil {
		return 0, err
	}
	return w, nil
}

func (p *pending) release(w int64) {
	if w > 0 {
		p.sem.Release(w)
	}
}

// factWeight estimates the heap a file's facts hold: its text (chunks
// share it) and a per-row cost measured on dense inputs (a Ref with its
// strings ~96 bytes, a Symbol ~160, a Chunk with its lists ~128).
func factWeight(f *extract.File) int64 {
	return f.Size + 96*int64(len(f.Refs)) + 160*int64(len(f.Symbols)) + 128*int64(len(f.Chunks))
}
