package indexer

import (
	"context"
	"fmt"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/tables"
)

// Calibrator keeps an index's vector weights measured on the
// repository's own pseudo-queries; query.KeepCalibrated is the product's
// (the indexer runs it, the planner reads what it stored). It gets the
// stored value (meta fusion_calibration), the model of the index's
// complete vectors, the files the run wrote or deleted and the files
// indexed, and returns the value to store; embedder and commits are
// called only when it measures.
type Calibrator func(ctx context.Context, db tables.Reader, stored, model string, changed, files int,
	embedder func() (embed.Provider, error), commits func() []fileset.Commit) (string, error)

// Bounds of the history a calibration reads: the commits back from HEAD
// whose subjects may become pseudo-queries.
const (
	calibrateLog     = 1000
	calibrateTimeout = 10 * time.Second
)

// calibrateStage runs opts.Calibrate when the index has every vector of
// the run's model, and stores what it returns. A stage without vectors,
// or with some missing, leaves the stored value: searches use it only for
// its own model, and fall back by themselves.
func calibrateStage(ctx context.Context, db *tables.DB, root string, opts *Options, res *Result) error {
	vr := res.Vectors
	if opts.Calibrate == nil || vr == nil || vr.Model == "" || vr.Error != "" || len(vr.Missing) > 0 {
		return nil
	}
	meta, err := db.Meta(ctx)
	if err != nil {
		return err
	}
	stored := meta[tables.MetaFusionCalibration]
	embedder := func() (embed.Provider, error) {
		if opts.Embedder == nil && opts.LoadEmbedder != nil {
			var err error
			if opts.Embedder, opts.VectorsOff, err = opts.LoadEmbedder(); err != nil {
				return nil, err
			}
		}
		return opts.Embedder, nil
	}
	commits := func() []fileset.Commit {
		if res.Commit == "" {
			return nil // not in git, or no commit yet: no history to read
		}
		ctx, cancel := context.WithTimeout(ctx, calibrateTimeout)
		defer cancel()
		return fileset.GitLog(ctx, root, calibrateLog)
	}
	start := time.Now()
	value, err := opts.Calibrate(ctx, db.Reader(), stored, vr.Model, res.Parsed+res.Deleted, int(res.Counts.Files), embedder, commits)
	if err != nil {
		return fmt.Errorf("calibrate vector weights: %w", err)
	}
	vr.CalibrateMS = time.Since(start).Milliseconds()
	if value == stored {
		return nil
	}
	return db.Writer().SetMeta(ctx, map[string]string{tables.MetaFusionCalibration: value})
}
