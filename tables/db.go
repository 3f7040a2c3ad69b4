package tables

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
)

// OpenOptions configures Open.
type OpenOptions struct {
	// ReadOnly opens an existing index for reading only: the file is not
	// created, the schema is not migrated and Write, ReplaceSkipped and
	// SetMeta fail.
	ReadOnly bool

	// NoTrigram creates a new index without the trigram index behind
	// literal substring search (tables trigrams, trigram_segs,
	// trigram_files; trigram.go): substring search then reads every
	// file's text, which costs a small tree less than the index's bytes
	// (TrigramFor). The setting is sticky and recorded in meta key
	// "trigram" ("1" or "0"): an existing index keeps its own whatever
	// NoTrigram says, and only BuildTrigrams (GrowTrigrams) turns the
	// index on; nothing turns it off.
	NoTrigram bool

	// NoMap keeps the read connections from memory-mapping the file. An
	// index run reads little (file states, counts) but a mapped page it
	// touches stays in its resident memory: counting the rows of the
	// GOROOT/src index left 180 MB of the file resident at the run's
	// peak (BENCHMARKS.md, "Memory"). Servers and searches keep the map.
	NoMap bool

	// PageSize is the page size of a file Open creates: a power of two
	// from 512 to 65536, 0 for DefaultPageSize. An existing file keeps
	// the size it was created with. PageSizeFor picks one for a tree.
	PageSize int
}

// Page sizes of a new index (OpenOptions.PageSize). An empty index is
// some thirty b-trees (tables and indexes) of a page each, and a small
// tree's tables fill their last pages little: with 4 KiB pages the index
// of a 54 KB repository was 5.9 times its size, with 1 KiB pages 3.8
// times. On large trees small pages cost CPU: a cold index of GOROOT/src
// took 18 % more with 1 KiB pages. Small pages up to 2 MiB of files took
// cats (1.46 MB) from 3.01 to 2.87 times its source, for about 0.1 CPU s
// more on its 1 s cold index (ADR 15; BENCHMARKS.md, "Index size").
const (
	DefaultPageSize = 4096
	SmallPageSize   = 1024
	// SmallTreeBytes is the largest tree that PageSizeFor gives small
	// pages.
	SmallTreeBytes = 2 << 20
)

// PageSizeFor returns the page size for a new index of a tree holding
// treeBytes of files (an estimate; negative when unknown).
func PageSizeFor(treeBytes int64) int {
	if treeBytes >= 0 && treeBytes <= SmallTreeBytes {
		return SmallPageSize
	}
	return DefaultPageSize
}

// DB is an open index. It holds two connection pools on one SQLite file in
// WAL mode: a single writer connection, used by the write methods, and a
// pool of read-only connections, returned by SQL. Readers see the last
// committed state and are never blocked by a write in progress.
//
// A DB is safe for concurrent use, but writes are serialised: one Write
// runs at a time.
type DB struct {
	path string
	w    *sql.DB // nil when read-only; at most one connection
	r    *sql.DB

	// immutable is set once a read-only connection had to open the file
	// as immutable (openedAs is the file then): see Immutable.
	immutable atomic.Bool
	openedAs  os.FileInfo

	// trigram is set once the index is known to keep its trigram index
	// (meta trigram = "1"). Another process may build it while this one
	// has the index open (GrowTrigrams), so a false is checked again
	// inside each write and exact search (trigramOn); a true never
	// goes back.
	trigram atomic.Bool

	reader *IndexReader
	writer *Writer
}

// Errors returned by Open. Each is wrapped with the path and the versions
// involved; test with errors.Is.
var (
	// ErrRebuildNeeded means the index was written by an older viberag
	// whose schema cannot be migrated.
	ErrRebuildNeeded = errors.New("index was written by an older viberag whose schema this one does not read; `viberag index` rebuilds it")
	// ErrNewerSchema means the index was written by a newer viberag.
	ErrNewerSchema = errors.New("index was written by a newer viberag; upgrade viberag or run `viberag index --force` to rebuild it")
	// ErrNotIndex means the file is an SQLite database (or not even that)
	// but not a viberag index.
	ErrNotIndex = errors.New("not a viberag index; run `viberag index --force` to replace it")
	// ErrMigrationNeeded means a read-only Open found an older, migratable
	// schema; opening the index for writing migrates it.
	ErrMigrationNeeded = errors.New("index schema is older than this viberag; run `viberag index` to upgrade it")
)

// Open opens the index at path. Unless opts.ReadOnly is set it creates the
// directory and the file when missing, and creates or migrates the schema.
//
// Open fails with an error wrapping ErrNewerSchema, ErrNotIndex,
// ErrRebuildNeeded or ErrMigrationNeeded when the file cannot be used as
// it is.
func Open(ctx context.Context, path string, opts OpenOptions) (*DB, error) {
	return open(ctx, path, opts, migrations())
}

func open(ctx context.Context, path string, opts OpenOptions, steps []migration) (_ *DB, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db := &DB{path: abs}
	db.reader = &IndexReader{db: db, texts: newTextCache(maxCachedTextBytes)}
	db.writer = &Writer{db: db}
	defer func() {
		if err != nil {
			db.Close()
			if isNotADB(err) && !errors.Is(err, ErrNotIndex) {
				err = fmt.Errorf("%w: %w", ErrNotIndex, err)
			}
			if !errors.Is(err, ErrNotWritable) { // which names the file
				err = fmt.Errorf("open index %s: %w", path, err)
			}
		}
	}()

	if opts.ReadOnly {
		// mode=ro: a missing file is an error, not a new empty index.
		if db.openedAs, err = os.Stat(abs); err != nil {
			return nil, err
		}
		cs := readerParams(true, !opts.NoMap)
		cs.immutable = func() { db.immutable.Store(true) }
		db.r, err = openPool(abs, cs)
		if err != nil {
			return nil, err
		}
		db.reader.stmts.pool = db.r
		if err := checkSchema(ctx, db.r, steps); err != nil {
			return nil, err
		}
		on, err := readTrigram(ctx, db.r)
		if err != nil {
			return nil, err
		}
		db.trigram.Store(on)
		return db, nil
	}

	// A read-only directory or file fails here, naming it, before SQLite
	// creates a -shm that would outlive the failure.
	if err := CheckWritable(abs); err != nil {
		return nil, err
	}
	if err := healCompanions(abs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	existing := err == nil && fi.Size() > 0
	ps := opts.PageSize
	if ps == 0 {
		ps = DefaultPageSize
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return nil, fmt.Errorf("page size %d: not a power of two from 512 to 65536", ps)
	}
	db.w, err = openPool(abs, writerParams(ps))
	if err != nil {
		return nil, err
	}
	// The writer's one connection lives as long as the DB: its page cache
	// and prepared schema are worth keeping between batches.
	db.w.SetMaxOpenConns(1)
	db.w.SetMaxIdleConns(1)
	db.w.SetConnMaxLifetime(0)
	db.w.SetConnMaxIdleTime(0)
	if err := db.w.PingContext(ctx); err != nil {
		return nil, err
	}
	db.r, err = openPool(abs, readerParams(false, !opts.NoMap))
	if err != nil {
		return nil, err
	}
	db.reader.stmts.pool = db.r
	// An index whose schema is current opens without a write, so another
	// program's write transaction (an sqlite3 shell) does not stop it:
	// only the writes of a run wait for it.
	on, ready := false, false
	if existing {
		on, ready = schemaReady(ctx, db.r, steps)
	}
	if !ready {
		if on, err = initSchema(ctx, db.w, steps, !opts.NoTrigram); err != nil {
			return nil, err
		}
	}
	db.trigram.Store(on)
	return db, nil
}

// schemaReady reports whether the index's schema is current and needs
// nothing initSchema would write, and whether it keeps its trigram
// index. Any error means not ready: initSchema then reports it.
func schemaReady(ctx context.Context, r *sql.DB, steps []migration) (trigram, ready bool) {
	if checkSchema(ctx, r, steps) != nil {
		return false, false
	}
	on, err := readTrigram(ctx, r)
	if err != nil {
		return false, false
	}
	return on, true
}

// Immutable reports whether the index is read through connections that
// open the file as immutable (SQLite's immutable=1: no locks, no WAL).
// A read-only Open falls back to them when SQLite cannot use the
// shared memory of WAL mode — the directory does not let this process
// create index.db-shm — and the file is at rest (no WAL holds changes
// not yet in it). The answers are then those of the file as it was;
// Changed tells when it no longer is.
func (db *DB) Immutable() bool { return db.immutable.Load() }

// Changed reports whether an immutable index (Immutable) has changed
// since it was opened: the file replaced or rewritten, or a writer's
// WAL beside it. The connections would then read a mix of old and new
// pages: reopen the index. It is false for any other DB.
func (db *DB) Changed() bool {
	if !db.immutable.Load() || db.openedAs == nil {
		return false
	}
	fi, err := os.Stat(db.path)
	if err != nil || !os.SameFile(fi, db.openedAs) || fi.Size() != db.openedAs.Size() || !fi.ModTime().Equal(db.openedAs.ModTime()) {
		return true
	}
	return walAtRest(db.path) != nil
}

// Close closes both pools. Readers close first so that the writer's
// connection is the last one and checkpoints the WAL into the database.
func (db *DB) Close() error {
	errs := []error{db.reader.stmts.close()}
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close index %s: %w", db.path, err)
	}
	return nil
}

// SQL returns the pool of read-only connections, for the query package.
// Statements that write fail (PRAGMA query_only). Readers see the last
// committed Write.
func (db *DB) SQL() *sql.DB { return db.r }

// Path returns the absolute path of the index file.
func (db *DB) Path() string { return db.path }

// Reader returns the index's read side: what searches read (Reader).
func (db *DB) Reader() *IndexReader { return db.reader }

// Writer returns the index's write side.
func (db *DB) Writer() *Writer { return db.writer }

// Remove deletes the index file at path together with its -wal and -shm
// companions and its vector file. A stale WAL left beside a new database
// file would be replayed into it, so deleting only the main file is not
// safe. Missing files are not an error. The index must not be open.
func Remove(path string) error {
	var errs []error
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal", VectorFilePath(path)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove index %s: %w", path, err)
	}
	return nil
}

// isNotADB reports whether err is SQLite's "file is not a database".
func isNotADB(err error) bool {
	code, ok := sqliteCode(err)
	return ok && code&0xff == codeNotADB
}

// errReadOnly is returned by write methods on a read-only DB.
func (db *DB) errReadOnly(op string) error {
	return fmt.Errorf("%s %s: index opened read-only", op, db.path)
}

// Connection settings. Every connection runs them as it opens (see
// connector), so a pooled connection never lacks one.
//
//   - WAL: readers never block the writer nor the writer them.
//   - synchronous=NORMAL: in WAL mode a crash (even power loss) cannot
//     corrupt the database or tear a transaction; it can only lose the last
//     transactions before the next checkpoint, which the next incremental
//     run redoes.
//   - busy_timeout: another process's write (a second `viberag index`)
//     waits instead of failing at once.
//   - mmap: a reader's pages of a large index go through the page cache
//     of the OS instead of SQLite's. The writer maps nothing and keeps a
//     16 MB cache: with 64 MB and a map, indexing GOROOT/src/net peaked
//     at 257 MB resident against 167 MB with 8 MB and no map, in the same
//     time (BENCHMARKS.md, "Memory").
//   - The read pool's connections share one budget of page cache
//     (readersCacheKiB) and one of map (readersMapBytes), split evenly:
//     each connection maps the file on its own, and a page mapped by
//     eight counts eight times in the process's resident memory. With
//     16 MB and 256 MB for each of eight, a server's resident memory
//     grew for as long as searches reached new pages (814 MB on an
//     85 MB index; BENCHMARKS.md, "Memory").
const (
	busyTimeoutMS   = 10000
	writerCacheKiB  = 16 << 10 // the writer updates many b-trees at once; see below
	readersCacheKiB = 32 << 10
	readersMapBytes = 256 << 20
	walLimitBytes   = 64 << 20
	maxReaderConns  = 8
)

// readerConns is the read pool's size: a connection for each CPU the
// process may use, from 2 to maxReaderConns.
func readerConns() int { return min(max(runtime.GOMAXPROCS(0), 2), maxReaderConns) }

// connSettings are a pool's URI parameters (for SQLite and the driver)
// and the PRAGMAs each of its connections runs first, in order.
type connSettings struct {
	params  url.Values
	pragmas []string
	// newFile are the PRAGMAs of pragmas that only fix the format of a
	// file without pages, skipped on an existing one: auto_vacuum takes a
	// write transaction even when it changes nothing.
	newFile map[string]bool
	// immutable, set for a mode=ro pool, is called when a connection had
	// to open the file as immutable (see DB.Immutable); such a pool
	// falls back to that whether it is set or not.
	immutable func()
}

// writerParams are the writer's settings; pageSize is the page size of a
// new file (OpenOptions.PageSize).
func writerParams(pageSize int) connSettings {
	c := commonParams(writerCacheKiB, 0)
	c.pragmas = append(c.pragmas,
		// The writer's temporary b-trees (the sorts of a large batch) go
		// to a temporary file, whose pages the OS may drop, not to the
		// heap: with them in memory, indexing GOROOT/src peaked at 348 MB
		// resident against 294 MB, at 8 % more CPU (BENCHMARKS.md,
		// "Memory").
		"temp_store = FILE",
		// page_size takes effect only before the file's first page is
		// written, so it must precede journal_mode. On an existing index
		// it is a no-op. Chunk text is in sources, not in chunk rows, and
		// 4 KiB pages give a 3 % smaller index on GOROOT/src/net than 16
		// KiB ones and a 17–19 % smaller one on small repositories, whose
		// thirty-odd tables and indexes take a page each (ADR 9); a small
		// tree gets 1 KiB pages (PageSizeFor).
		fmt.Sprintf("page_size = %d", pageSize),
		// Like page_size, auto_vacuum is fixed when the first table is
		// created (a no-op on an existing index). INCREMENTAL lets
		// CompactFTS give back the pages its merges free: after a cold
		// run they were 14 % of the tokio index and 3 % of GOROOT/src's,
		// free pages inside the file.
		autoVacuum,
		"journal_mode = WAL",
		"foreign_keys = 1",
		// A large batch grows the WAL; truncate it back after
		// checkpoints instead of keeping its largest size forever.
		fmt.Sprintf("journal_size_limit = %d", walLimitBytes),
		// Checkpoint once the WAL holds walLimitBytes, not SQLite's 1000
		// pages: a batch of an index run writes more than 4 MB, so every
		// commit copied its pages into the file, and the pages every
		// batch rewrites (b-tree interiors, posting lists) were copied
		// once per batch; on GOROOT/src 3 to 5 % of a cold run's CPU.
		fmt.Sprintf("wal_autocheckpoint = %d", walLimitBytes/pageSize),
	)
	// BEGIN IMMEDIATE takes the write lock up front, so a busy database
	// makes Begin wait (busy_timeout) rather than fail at the first write
	// with SQLITE_BUSY that no retry can fix.
	c.params.Set("_txlock", "immediate")
	c.newFile = map[string]bool{autoVacuum: true}
	return c
}

const autoVacuum = "auto_vacuum = INCREMENTAL"

func readerParams(readOnlyFile, mmap bool) connSettings {
	n := readerConns()
	m := 0
	if mmap {
		m = readersMapBytes / n
	}
	c := commonParams(readersCacheKiB/n, m)
	c.pragmas = append(c.pragmas, "temp_store = MEMORY", "query_only = 1")
	if readOnlyFile {
		c.params.Set("mode", "ro")
	}
	return c
}

func commonParams(cacheKiB, mmap int) connSettings {
	return connSettings{
		params: url.Values{},
		pragmas: []string{
			fmt.Sprintf("busy_timeout = %d", busyTimeoutMS),
			"synchronous = NORMAL",
			// A negative size is KiB, which SQLite turns into a page count
			// with the page size of the moment: on a new file that is the
			// default 4 KiB, before page_size runs. With 16 KiB pages that
			// made a 16 MB cache 64 MB (BENCHMARKS.md, "Memory").
			// With SmallPageSize it is a quarter: 4 MB, for an index
			// of a tree under SmallTreeBytes.
			fmt.Sprintf("cache_size = -%d", cacheKiB),
			fmt.Sprintf("mmap_size = %d", mmap),
		},
	}
}

// openPool opens a pool on the file at abs. The name is a file: URI so
// that a path holding '?', '#' or '%' survives, and so that mode=ro
// reaches SQLite.
func openPool(abs string, cs connSettings) (*sql.DB, error) {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:///C:/...
	}
	dsn := "file://" + (&url.URL{Path: p}).EscapedPath()
	if len(cs.params) > 0 {
		dsn += "?" + cs.params.Encode()
	}
	c := &connector{drv: sqliteDriver(), dsn: dsn, pragmas: cs.pragmas, newFile: cs.newFile}
	if cs.params.Get("mode") == "ro" {
		c.path, c.immutableDSN, c.immutable = abs, dsn+"&immutable=1", cs.immutable
	}
	pool := sql.OpenDB(c)
	n := readerConns()
	pool.SetMaxOpenConns(n)
	pool.SetMaxIdleConns(n)
	return pool, nil
}

// connector opens connections of one pool: each runs the pool's PRAGMAs
// before it is used, so that no pooled connection lacks one.
type connector struct {
	drv     driver.Driver
	dsn     string
	pragmas []string
	newFile map[string]bool

	// A mode=ro pool's connections open the file at path immutable
	// (immutableDSN) when it cannot be shared (see DB.Immutable), and
	// call immutable.
	path         string
	immutableDSN string
	immutable    func()
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.connect(ctx, c.dsn)
	if err == nil || c.immutableDSN == "" || !cannotShare(err, c.path) {
		return conn, err
	}
	// No connection can have the file open in WAL mode now: each keeps
	// index.db-shm, and none could create it. So the file alone holds
	// every committed change, once no WAL holds more.
	if err := walAtRest(c.path); err != nil {
		return nil, err
	}
	if conn, err = c.connect(ctx, c.immutableDSN); err == nil && c.immutable != nil {
		c.immutable()
	}
	return conn, err
}

// connect opens a connection and runs the PRAGMAs; a read-only one also
// reads the header, which is where SQLite finds it cannot share the
// file.
func (c *connector) connect(ctx context.Context, dsn string) (driver.Conn, error) {
	conn, err := c.drv.Open(dsn)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlite driver %T cannot execute statements directly", conn)
	}
	pages := -1
	for _, p := range c.pragmas {
		if c.newFile[p] {
			if pages < 0 {
				if pages, err = pageCount(ctx, conn); err != nil {
					conn.Close()
					return nil, err
				}
			}
			if pages > 0 {
				continue
			}
		}
		if _, err := ex.ExecContext(ctx, "PRAGMA "+p, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("PRAGMA %s: %w", p, err)
		}
	}
	if c.immutableDSN != "" {
		if _, err := ex.ExecContext(ctx, "PRAGMA schema_version", nil); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// pageCount returns the number of pages of the connection's file.
func pageCount(ctx context.Context, conn driver.Conn) (int, error) {
	q, ok := conn.(driver.QueryerContext)
	if !ok {
		return 0, fmt.Errorf("sqlite driver %T cannot query directly", conn)
	}
	rows, err := q.QueryContext(ctx, "PRAGMA page_count", nil)
	if err != nil {
		return 0, fmt.Errorf("PRAGMA page_count: %w", err)
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		return 0, fmt.Errorf("PRAGMA page_count: %w", err)
	}
	n, _ := v[0].(int64)
	return int(n), nil
}

// walHeaderBytes is the size of a WAL that holds no frame.
const walHeaderBytes = 32

// cannotShare reports whether err is SQLite failing to open the WAL
// or shared memory of the file at path because its directory is
// read-only for this process.
func cannotShare(err error, path string) bool {
	code, ok := sqliteCode(err)
	if !ok || (code&0xff != codeReadOnly && code&0xff != codeCantOpen) {
		return false
	}
	return accessWrite(filepath.Dir(path)) != nil
}

// walAtRest returns nil when no WAL beside the index at path holds
// frames, and else why an immutable read would miss them.
func walAtRest(path string) error {
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() <= walHeaderBytes {
		return nil
	}
	why := fmt.Errorf("%s-wal holds changes not yet copied into %s, which SQLite reads only by creating %s-shm beside it", path, filepath.Base(path), filepath.Base(path))
	if err := notWritable(filepath.Dir(path), true); err != nil {
		return fmt.Errorf("%w: %w", why, err)
	}
	return why
}

func (c *connector) Driver() driver.Driver { return c.drv }
