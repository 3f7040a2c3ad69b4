package tables

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	kflate "github.com/klauspost/compress/flate"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/postings"
)

// BenchmarkWrite measures Write throughput on synthetic Go-like files of
// 15 functions (~300 lines, ~1100 rows each: refs are most of them, as on
// real trees), in batches of 100 files. Each op does a fixed amount of
// work, so results do not drift with b.N:
//
//   - new: five batches of new files into an empty index, as a first
//     index does;
//   - rewrite: five batches replacing files of an index holding 500, as
//     an incremental run over changed files does (deletes plus inserts).
//
// rows/s counts files, symbols, chunks and refs written per second of
// wall time, rows/cpu-s per second of process CPU time (the figure to
// trust on a busy machine).
func BenchmarkWrite(b *testing.B) {
	const batches, batch, funcs = 5, 100, 15
	mk := func(gen, part int) ([]*extract.File, int) {
		files := make([]*extract.File, batch)
		rows := 0
		for i := range files {
			files[i] = synthFile(fmt.Sprintf("dir%d/file%d.go", part, i), gen, funcs)
			rows += rowCount(files[i])
		}
		return files, rows
	}
	for _, mode := range []string{"new", "rewrite"} {
		b.Run(mode, func(b *testing.B) {
			var rows int
			var wall, cpu time.Duration
			gen := 0
			var db *DB
			if mode == "rewrite" {
				db = openTest(b)
				for part := range batches {
					files, _ := mk(gen, part)
					mustWrite(b, db, files, nil)
				}
			}
			for b.Loop() {
				b.StopTimer()
				if mode == "new" {
					if db != nil {
						db.Close()
					}
					db = openTest(b)
				}
				gen++
				var work [][]*extract.File
				for part := range batches {
					files, n := mk(gen, part)
					work = append(work, files)
					rows += n
				}
				b.StartTimer()
				start, startCPU := time.Now(), cpuTime()
				for _, files := range work {
					if err := db.Writer().Write(context.Background(), files, nil); err != nil {
						b.Fatal(err)
					}
				}
				wall += time.Since(start)
				cpu += cpuTime() - startCPU
			}
			b.ReportMetric(float64(rows)/wall.Seconds(), "rows/s")
			if cpu > 0 {
				b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
			}
			b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
		})
	}
}

// BenchmarkWriteTree indexes a real source tree, extracted up front with
// the extract package, into a fresh index, with and without the trigram
// index: the first-index cost of tables alone, on benchTree; the
// benchmark reports rows/s,
// rows/cpu-s, the CPU seconds of the writes and of Optimize, and the
// index size, and logs the size of each table with its indexes (dbstat).
func BenchmarkWriteTree(b *testing.B) {
	root := benchTree(b)
	files, rows := extractTree(b, root)
	b.Logf("%d files, %d rows", len(files), rows)
	const batch = 200
	for _, tc := range []struct {
		name     string
		opts     OpenOptions
		prepared bool // time WritePrepared only: what an index run's writer goroutine does
		// deferred: the indexes DeferIndexes drops are built after the
		// writes (timed), as a first index run does.
		deferred bool
	}{
		{"trigram", OpenOptions{}, false, false},
		{"notrigram", OpenOptions{NoTrigram: true}, false, false},
		{"prepared", OpenOptions{}, true, false},
		{"prepared-deferred", OpenOptions{}, true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				db, err := Open(context.Background(), filepath.Join(b.TempDir(), "index.db"), tc.opts)
				if err != nil {
					b.Fatal(err)
				}
				var prepared []*Prepared
				if tc.prepared {
					p := db.Writer().NewPreparer()
					for _, f := range files {
						prepared = append(prepared, p.Prepare(f))
					}
				}
				if tc.deferred {
					if err := db.Writer().DeferIndexes(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				if tc.deferred {
					if err := db.Writer().DeferIndexes(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				start, startCPU := time.Now(), cpuTime()
				for i := 0; i < len(files); i += batch {
					var err error
					if tc.prepared {
						err = db.Writer().WritePrepared(context.Background(), prepared[i:min(i+batch, len(files))], nil)
					} else {
						err = db.Writer().Write(context.Background(), files[i:min(i+batch, len(files))], nil)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if tc.deferred {
					if err := db.Writer().BuildIndexes(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				elapsed, cpu := time.Since(start), cpuTime()-startCPU
				b.StopTimer()
				optStart := cpuTime()
				if err := db.Writer().Optimize(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric((cpuTime() - optStart).Seconds(), "optimize-cpu-s")
				b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
				if cpu > 0 {
					b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
					b.ReportMetric(cpu.Seconds(), "cpu-s")
				}
				reportSizes(b, db)
				db.Close()
				b.StartTimer()
			}
		})
	}
}

func extractTree(b *testing.B, root string) ([]*extract.File, int) {
	b.Helper()
	var files []*extract.File
	rows := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 1<<20 || !d.Type().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		f, err := extract.Extract(context.Background(), filepath.ToSlash(rel), src, extract.Options{})
		if err != nil || f == nil {
			return nil
		}
		files = append(files, f)
		rows += rowCount(f)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, rows
}

// reportSizes logs the index file size and the bytes of each table with
// its indexes and FTS shadow tables.
func reportSizes(b *testing.B, db *DB) {
	b.Helper()
	if _, err := db.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(db.Path())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "MiB")
	rows, err := db.w.Query(`SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC`)
	if err != nil {
		b.Logf("dbstat: %v", err)
		return
	}
	defer rows.Close()
	groups := map[string]int64{}
	var order []string
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			b.Fatal(err)
		}
		g := name
		for _, prefix := range []string{"trigram", "chunk_word", "symbol_word", "file_word", "symbols", "chunks", "sources", "refs", "files"} {
			if strings.HasPrefix(name, prefix) || strings.Contains(name, "_autoindex_"+prefix) {
				g = prefix
				break
			}
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] += size
	}
	var sb strings.Builder
	for _, g := range order {
		fmt.Fprintf(&sb, " %s=%.1fMiB", g, float64(groups[g])/(1<<20))
	}
	b.Logf("index %.1f MiB:%s", float64(st.Size())/(1<<20), sb.String())
}

// BenchmarkChunksContaining runs exact text searches on benchIndex, one
// sub-benchmark per text, reporting the chunks holding it.
func BenchmarkChunksContaining(b *testing.B) {
	path := benchIndex(b)
	db, err := Open(context.Background(), path, OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, text := range []string{"reset by peer", "ErrClosed", "func (c *conn)", ":=", "%v", "=>", "Zq", "x"} {
		b.Run(text, func(b *testing.B) {
			hits, cpu0 := 0, cpuTime()
			for b.Loop() {
				hits = 0
				if err := db.Reader().ChunksContaining(context.Background(), text, scope.Scope{}, func(*ChunkText) bool { hits++; return true }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(hits), "chunks")
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkTrigramIndex builds only the trigram index of benchTree
// (every file under 1 MiB outside testdata) in
// batches of 256 files, one transaction each as Write does, then merges it
// into one segment: the CPU the trigram index adds to a cold index, and
// its size.
func BenchmarkTrigramIndex(b *testing.B) {
	root := benchTree(b)
	var texts [][]byte
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() < 1<<20 && d.Type().IsRegular() {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts = append(texts, src)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	set := postings.NewTrigramSet()
	for b.Loop() {
		b.StopTimer()
		db, err := Open(ctx, filepath.Join(b.TempDir(), "index.db"), OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := cpuTime()
		for i := 0; i < len(texts); i += 256 {
			tx, err := db.w.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			tb := &postings.TrigramBatch{}
			for j := i; j < min(i+256, len(texts)); j++ {
				if err := tb.Add(int64(j+1), set.Of(texts[j])); err != nil {
					b.Fatal(err)
				}
			}
			if err := (&batchWriter{ctx: ctx, tx: tx}).writeTrigrams(tb); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		writes := cpuTime() - start
		if err := db.writer.compactTrigrams(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(writes.Seconds(), "write-cpu-s")
		b.ReportMetric((cpuTime() - start).Seconds(), "cpu-s")
		b.ReportMetric(float64(queryInt(b, db, `SELECT sum(length(ids)) FROM trigrams`))/1e6, "MB")
		// Nothing else is in the file: its pages after a VACUUM are the
		// trigram index's (and an empty schema's).
		if _, err := db.w.Exec(`VACUUM`); err != nil {
			b.Fatal(err)
		}
		pages := queryInt(b, db, `SELECT page_count * page_size FROM pragma_page_count, pragma_page_size`)
		b.ReportMetric(float64(pages)/1e6, "file-MB")
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}

// BenchmarkExactText runs exact text searches (ChunksContaining, every
// chunk holding the text) over a real tree indexed with and without the
// trigram index, and reports the CPU per search, median and 95th
// percentile: warm (one open index, its text cache filled by the
// searches before, as in a server) and cold (each search on a freshly
// opened index, as a one-shot CLI search), on benchTree; the texts are
// substrings of its files (4 to 20 bytes, cut at a line end), in other
// cases too.
func BenchmarkExactText(b *testing.B) {
	root := benchTree(b)
	ctx := context.Background()
	files, _ := extractTree(b, root)
	var texts []string
	for i := 0; i < 60 && len(files) > 0; i++ {
		f := files[(i*7)%len(files)]
		if len(f.Chunks) == 0 {
			continue
		}
		c := f.Chunks[(i*3)%len(f.Chunks)].Text
		at := (i * 131) % max(len(c), 1)
		n := []int{4, 6, 8, 12, 20}[i%5]
		s := c[at:min(len(c), at+n)]
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			s = s[:j]
		}
		if i%3 == 0 {
			s = strings.ToUpper(s)
		}
		if len(s) >= 2 {
			texts = append(texts, s)
		}
	}
	dir := b.TempDir()
	for _, tc := range []struct {
		name string
		opts OpenOptions
	}{
		{"trigram", OpenOptions{PageSize: SmallPageSize}},
		{"scan", OpenOptions{PageSize: SmallPageSize, NoTrigram: true}},
	} {
		path := filepath.Join(dir, tc.name, "index.db")
		db, err := Open(ctx, path, tc.opts)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(files); i += 200 {
			if err := db.Writer().Write(ctx, files[i:min(i+200, len(files))], nil); err != nil {
				b.Fatal(err)
			}
		}
		db.Close()
		search := func(db *DB, text string) time.Duration {
			start := cpuTime()
			if err := db.Reader().ChunksContaining(ctx, text, scope.Scope{}, func(*ChunkText) bool { return true }); err != nil {
				b.Fatal(err)
			}
			return cpuTime() - start
		}
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				var warm, cold []time.Duration
				db, err := Open(ctx, path, OpenOptions{ReadOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range texts {
					warm = append(warm, search(db, s))
				}
				db.Close()
				for _, s := range texts {
					db, err := Open(ctx, path, OpenOptions{ReadOnly: true})
					if err != nil {
						b.Fatal(err)
					}
					cold = append(cold, search(db, s))
					db.Close()
				}
				for _, m := range []struct {
					name string
					d    []time.Duration
				}{{"warm", warm}, {"cold", cold}} {
					slices.Sort(m.d)
					b.ReportMetric(float64(m.d[len(m.d)/2])/1e6, m.name+"-p50-cpu-ms")
					b.ReportMetric(float64(m.d[len(m.d)*95/100])/1e6, m.name+"-p95-cpu-ms")
				}
			}
		})
	}
}

// BenchmarkPrepareTree prepares every file of benchTree, extracted up
// front, with one Preparer: what an
// index run's workers do besides parsing.
func BenchmarkPrepareTree(b *testing.B) {
	root := benchTree(b)
	files, _ := extractTree(b, root)
	p := newPreparer(true)
	var size int64
	for _, f := range files {
		size += f.Size
	}
	b.SetBytes(size)
	b.ResetTimer()
	startCPU := cpuTime()
	for b.Loop() {
		for _, f := range files {
			if pf := p.Prepare(f); pf.err != nil {
				b.Fatal(pf.err)
			}
		}
	}
	b.ReportMetric((cpuTime()-startCPU).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkBlobCodecs compresses the blobs of benchIndex again, each on
// its own as the writer does,
// with the codec the index uses at each of its levels and with the
// DEFLATE older indexes wrote, and decompresses them: per kind of blob
// (sources.text, sources.lists, sources.decls blocks, refs.groups) it
// reports the ratio (raw ÷ stored bytes) and the process CPU per raw MB
// of compressing and of decompressing (the encoder, decoder and buffers
// reused, as Preparer and the readers reuse theirs).
func BenchmarkBlobCodecs(b *testing.B) {
	path := benchIndex(b)
	ctx := context.Background()
	db, err := Open(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	blobs := map[string][][]byte{}
	var z decompressor
	add := func(kind string, blob []byte) {
		raw, err := z.decompress(blob)
		if err != nil {
			b.Fatal(err)
		}
		blobs[kind] = append(blobs[kind], bytes.Clone(raw))
	}
	rows, err := db.SQL().QueryContext(ctx, `SELECT text, lists, decls FROM sources`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var text, lists, decls []byte
		if err := rows.Scan(&text, &lists, &decls); err != nil {
			b.Fatal(err)
		}
		add("text", text)
		add("lists", lists)
		_, n, _, err := declsBlocks(decls, -1)
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			_, _, block, _ := declsBlocks(decls, i)
			add("decls", block)
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	rows.Close()
	rows, err = db.SQL().QueryContext(ctx, `SELECT groups FROM refs`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var groups []byte
		if err := rows.Scan(&groups); err != nil {
			b.Fatal(err)
		}
		add("refs", groups)
	}
	rows.Close()

	type codec struct {
		compress   func(p []byte) []byte
		decompress func(blob []byte) []byte
	}
	deflate := func() codec {
		var buf, out bytes.Buffer
		w, _ := kflate.NewWriter(&buf, kflate.DefaultCompression)
		var src bytes.Reader
		r := kflate.NewReader(&src)
		return codec{
			compress: func(p []byte) []byte {
				buf.Reset()
				w.Reset(&buf)
				w.Write(p)
				w.Close()
				return buf.Bytes()
			},
			decompress: func(blob []byte) []byte {
				src.Reset(blob)
				r.(kflate.Resetter).Reset(&src, nil)
				out.Reset()
				out.ReadFrom(r)
				return out.Bytes()
			},
		}
	}
	zstdAt := func(trigram bool) func() codec {
		return func() codec {
			c := compressor{small: !trigram}
			var z decompressor
			return codec{
				compress: func(p []byte) []byte {
					out, err := c.compress(p)
					if err != nil {
						b.Fatal(err)
					}
					return out
				},
				decompress: func(blob []byte) []byte {
					out, err := z.decompress(blob)
					if err != nil {
						b.Fatal(err)
					}
					return out
				},
			}
		}
	}
	codecs := []struct {
		name string
		make func() codec
	}{
		{"deflate-default", deflate},
		{fmt.Sprintf("zstd-%s", compressedLevel(true)), zstdAt(true)},
		{fmt.Sprintf("zstd-%s", compressedLevel(false)), zstdAt(false)},
	}
	for _, kind := range []string{"text", "lists", "decls", "refs"} {
		raw := 0
		for _, p := range blobs[kind] {
			raw += len(p)
		}
		mb := float64(raw) / (1 << 20)
		for _, cd := range codecs {
			b.Run(kind+"/"+cd.name, func(b *testing.B) {
				c := cd.make()
				stored := make([][]byte, len(blobs[kind]))
				var comp, decomp time.Duration
				size := 0
				for b.Loop() {
					size = 0
					t0 := cpuTime()
					for i, p := range blobs[kind] {
						out := c.compress(p)
						size += len(out)
						if stored[i] == nil {
							stored[i] = bytes.Clone(out)
						}
					}
					t1 := cpuTime()
					for _, s := range stored {
						c.decompress(s)
					}
					comp, decomp = comp+t1-t0, decomp+cpuTime()-t1
				}
				n := float64(b.N)
				b.ReportMetric(float64(raw)/float64(size), "ratio")
				b.ReportMetric(comp.Seconds()*1000/mb/n, "compress-cpu-ms/MB")
				b.ReportMetric(decomp.Seconds()*1000/mb/n, "decompress-cpu-ms/MB")
				b.ReportMetric(mb, "raw-MB")
			})
		}
	}
}
