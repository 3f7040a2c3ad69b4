package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/fulltext"
)

// pushLockClass is the first key of the advisory lock (class, repo id)
// that serialises pushes of one repository, taken on the catalog.
const pushLockClass = 0x76627270 // "vbrp"

// Push is one repository's push in progress: one transaction on the
// repository's shard, under the repository's push lock on the catalog.
// Readers of the shard see the snapshot before the push until Commit, and
// the whole new one after it. Write may be called many times (batches);
// it is not safe for concurrent use.
type Push struct {
	cat     *Catalog
	repo    Repo
	op      string        // "push", or "remove" for Catalog.Remove: what errors say
	shardAt string        // the shard's name and address (shardLabel), for errors
	lock    *pgxpool.Conn // catalog session holding the push lock
	shard   *pgxpool.Pool
	tx      pgx.Tx
	fb      *tables.FactBuilder
	now     time.Time

	states map[string]tables.FileState // the repository's files as the push leaves them
	nextID int64
	stats  map[string]*fulltext.Stats // deltas of fts_stats
	tsv    []string                   // scratch
	tf     tfBuilder
	pb     postingsBuilder
	posts  [][]any         // postings rows of the files written, for COPY
	wrote  map[string]bool // paths this push wrote
	// postings says the repository's postings were complete when the
	// push began (repo_state.postings).
	postings bool

	// Written and Deleted count the files this push wrote and removed.
	Written, Deleted int
	// Unindexed counts tokens left out of a row's lookup tsvector because
	// they pass PostgreSQL's limits (a lexeme of 2 KiB, a tsvector of
	// 1 MiB): their text is stored and ranked, but a GIN lookup of them
	// misses the row.
	Unindexed int
}

// BeginPush starts a push of the repository called name, registering it
// on a shard when it is new. When another push of it is running, waiting
// is called once with a message and BeginPush waits for it to end.
func (c *Catalog) BeginPush(ctx context.Context, name string, waiting func(msg string)) (p *Push, err error) {
	return c.beginPush(ctx, "push", name, waiting)
}

// beginPush is BeginPush for op (push, remove), which errors name.
func (c *Catalog) beginPush(ctx context.Context, op, name string, waiting func(msg string)) (p *Push, err error) {
	repo, err := c.Place(ctx, name)
	if err != nil {
		return nil, err
	}
	p = &Push{cat: c, repo: repo, op: op, fb: tables.NewFactBuilder(), now: time.Now().UTC(), stats: map[string]*fulltext.Stats{}}
	started := p // p is nil once a failure returns
	defer func() {
		if err != nil {
			started.Rollback()
		}
	}()
	if p.lock, err = c.pool.Acquire(ctx); err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, name, err)
	}
	var got bool
	if err := p.lock.QueryRow(ctx, `SELECT pg_try_advisory_lock($1::int4, $2::int4)`, pushLockClass, repo.ID).Scan(&got); err != nil {
		return nil, fmt.Errorf("%s %s: lock: %w", op, name, err)
	}
	if !got {
		if waiting != nil {
			waiting(fmt.Sprintf("waiting for another push of %s to finish", name))
		}
		if _, err := p.lock.Exec(ctx, `SELECT pg_advisory_lock($1::int4, $2::int4)`, pushLockClass, repo.ID); err != nil {
			return nil, fmt.Errorf("%s %s: wait for the other push: %w", op, name, err)
		}
	}
	// Read the repository again: the push that held the lock moved it on.
	if p.repo, err = c.Repo(ctx, All, name); err != nil {
		return nil, err
	}
	shards, err := c.Shards(ctx)
	if err != nil {
		return nil, err
	}
	var url string
	for _, s := range shards {
		if s.Name == p.repo.Shard {
			url = s.URL
		}
	}
	if url == "" {
		return nil, fmt.Errorf("%s %s: shard %q is not registered", op, name, p.repo.Shard)
	}
	p.shardAt = shardLabel(p.repo.Shard, url)
	if p.shard, err = connect(ctx, url); err != nil {
		return nil, p.fail("", err)
	}
	if err := checkVersion(ctx, p.shard, "shard", len(shardMigrations)); err != nil {
		return nil, p.fail("", err)
	}
	if p.tx, err = p.shard.Begin(ctx); err != nil {
		return nil, p.fail("begin", err)
	}
	if err := p.loadStates(ctx); err != nil {
		return nil, p.fail("", err)
	}
	return p, nil
}

// fail wraps err, from the push's work on its shard, naming the
// repository and the shard (its name and address): a connection lost
// mid-way says neither.
func (p *Push) fail(what string, err error) error {
	if what != "" {
		what += ": "
	}
	return fmt.Errorf("%s %s on %s: %s%w", p.op, p.repo.Name, p.shardAt, what, err)
}

// Repo returns the repository being pushed, as it was when the push began.
func (p *Push) Repo() Repo { return p.repo }

func (p *Push) loadStates(ctx context.Context) error {
	rows, err := p.tx.Query(ctx, `SELECT id, path, hash, parse_status, size FROM files WHERE repo_id = $1`, p.repo.ID)
	if err != nil {
		return fmt.Errorf("read file hashes: %w", err)
	}
	p.states = map[string]tables.FileState{}
	for rows.Next() {
		var s tables.FileState
		if err := rows.Scan(&s.ID, &s.Path, &s.Hash, &s.ParseStatus, &s.Size); err != nil {
			rows.Close()
			return fmt.Errorf("read file hashes: %w", err)
		}
		s.Path = DecodeText(s.Path)
		s.ParseStatus = DecodeText(s.ParseStatus)
		p.states[s.Path] = s
		p.nextID = max(p.nextID, s.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Facts of other readers are made again: their hashes are not
	// trusted, so every file is re-extracted and replaced.
	var facts string
	err = p.tx.QueryRow(ctx, `SELECT coalesce(max(facts_version), ''), coalesce(bool_or(postings), false) FROM repo_state WHERE repo_id = $1`,
		p.repo.ID).Scan(&facts, &p.postings)
	if err != nil {
		return fmt.Errorf("read facts version: %w", err)
	}
	if facts != strconv.Itoa(extract.FactsVersion) {
		for path, st := range p.states {
			st.Hash = ""
			p.states[path] = st
		}
	}
	return nil
}

// FileStates returns the state of every file of the repository, by path,
// as this push has left it so far.
func (p *Push) FileStates(ctx context.Context) (map[string]tables.FileState, error) {
	out := make(map[string]tables.FileState, len(p.states))
	for k, v := range p.states {
		out[k] = v
	}
	return out, nil
}

// Write replaces the rows of every file in files and removes those of
// every path in deleted, inside the push's transaction (as tables.Writer.Write
// does for an index file).
func (p *Push) Write(ctx context.Context, files []*extract.File, deleted []string) error {
	if p.tx == nil {
		return errors.New("push: write after commit or rollback")
	}
	files = lastPerPath(files)
	written := make(map[string]bool, len(files))
	for _, f := range files {
		written[f.Path] = true
	}
	var cleared []int64
	var gone []string
	for _, f := range files {
		if s, ok := p.states[f.Path]; ok {
			cleared = append(cleared, s.ID)
		}
	}
	for _, path := range deleted {
		if s, ok := p.states[path]; ok && !written[path] {
			cleared = append(cleared, s.ID)
			gone = append(gone, path)
		}
	}
	if err := p.clear(ctx, cleared); err != nil {
		return p.fail("", err)
	}
	for _, path := range gone {
		delete(p.states, path)
	}
	p.Deleted += len(gone)
	b := &pgx.Batch{}
	var refs [][]any
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := p.states[f.Path].ID
		if _, ok := p.states[f.Path]; !ok {
			p.nextID++
			id = p.nextID
		}
		refs = p.queueFile(b, id, f, refs)
		p.states[f.Path] = tables.FileState{ID: id, Path: f.Path, Hash: tables.Hex(f.Hash), ParseStatus: f.ParseStatus, Size: f.Size}
		if p.wrote == nil {
			p.wrote = map[string]bool{}
		}
		p.wrote[f.Path] = true
		p.Written++
		if b.Len() >= 2000 {
			if err := p.tx.SendBatch(ctx, b).Close(); err != nil {
				return p.fail("write", err)
			}
			b = &pgx.Batch{}
		}
	}
	if b.Len() > 0 {
		if err := p.tx.SendBatch(ctx, b).Close(); err != nil {
			return p.fail("write", err)
		}
	}
	if len(p.posts) > 0 {
		_, err := p.tx.CopyFrom(ctx, pgx.Identifier{"postings"}, postingCols, pgx.CopyFromRows(p.posts))
		p.posts = p.posts[:0]
		if err != nil {
			return p.fail("write postings", err)
		}
	}
	if len(refs) > 0 {
		_, err := p.tx.CopyFrom(ctx, pgx.Identifier{"refs"},
			[]string{"repo_id", "file_id", "row", "kind", "name", "name_lower", "target", "n", "uses"}, pgx.CopyFromRows(refs))
		if err != nil {
			return p.fail("write refs", err)
		}
	}
	return nil
}

// clear deletes the rows of the files with these ids, keeping fts_stats'
// deltas.
func (p *Push) clear(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	for _, tbl := range []string{"files", "symbols", "chunks"} {
		col := "file_id"
		if tbl == "files" {
			col = "id"
		}
		var n, tok int64
		err := p.tx.QueryRow(ctx, `WITH d AS (DELETE FROM `+tbl+` WHERE repo_id = $1 AND `+col+` = ANY($2) RETURNING ntok)
			SELECT count(*), coalesce(sum(ntok), 0) FROM d`, p.repo.ID, ids).Scan(&n, &tok)
		if err != nil {
			return fmt.Errorf("clear %s: %w", tbl, err)
		}
		p.stat(tbl, -n, -tok)
	}
	if _, err := p.tx.Exec(ctx, `DELETE FROM refs WHERE repo_id = $1 AND file_id = ANY($2)`, p.repo.ID, ids); err != nil {
		return fmt.Errorf("clear refs: %w", err)
	}
	if _, err := p.tx.Exec(ctx, `DELETE FROM postings WHERE repo_id = $1 AND file_id = ANY($2)`, p.repo.ID, ids); err != nil {
		return fmt.Errorf("clear postings: %w", err)
	}
	return nil
}

func (p *Push) stat(tbl string, rows, tokens int64) {
	s := p.stats[tbl]
	if s == nil {
		s = &fulltext.Stats{}
		p.stats[tbl] = s
	}
	s.Rows += rows
	s.Tokens += tokens
}

// maxLexeme is one byte under PostgreSQL's limit on a tsvector lexeme
// (2 KiB); a longer token (a base64 blob) is left out of the lookup
// structure only: its text is stored and ranked in full.
const maxLexeme = 2047

// maxTsvBytes keeps a tsvector's lexemes under PostgreSQL's 1 MiB bound
// with room for its per-lexeme entries.
const maxTsvBytes = 768 << 10

// tokens tokenizes cols as the SQLite index does and returns their token
// count, the distinct tokens for the tsvector and the row's term
// frequencies (tf.go).
func (p *Push) tokens(cols ...string) (int, []string, []byte) {
	n, keys, tf := p.tf.build(cols)
	p.tsv = p.tsv[:0]
	size := 0
	for _, t := range keys {
		if len(t) > maxLexeme {
			p.Unindexed += int(sumCounts(p.tf.counts[t]))
			continue
		}
		if size += len(t) + 8; size > maxTsvBytes {
			p.Unindexed++
			continue
		}
		p.tsv = append(p.tsv, t)
	}
	// Never nil: a nil slice is SQL NULL, and array_to_tsvector(NULL) is
	// NULL (a Ruby operator method has no token at all).
	return n, append([]string{}, p.tsv...), tf
}

func sumCounts(cs []uint32) uint32 {
	var s uint32
	for _, c := range cs {
		s += c
	}
	return s
}

const (
	insFile = `INSERT INTO files(repo_id, id, path, ext, language, size, lines, hash, imports, exports, doc, summary,
		parse_status, parse_problem, indexed_at, ntok, tsv, tf)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,array_to_tsvector($17::text[]),$18)`
	insSymbol = `INSERT INTO symbols(repo_id, sid, file_id, ord, kind, name, qualname, parent_sid, start_line, end_line,
		start_byte, end_byte, signature, doc, is_exported, decorators, identifiers, ident_parts, calls, strings, hash, ntok, tsv, tf, dtsv)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,array_to_tsvector($23::text[]),$24,
		array_to_tsvector($25::text[]))`
	insChunk = `INSERT INTO chunks(repo_id, cid, file_id, start_line, end_line, start_byte, end_byte, symbol_sid, header, content,
		identifiers, ident_parts, calls, strings, hash, ntok, tsv, ord, tf)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,array_to_tsvector($17::text[]),$18,$19)`
)

// queueFile queues the rows of f (file id id) on b and appends its refs
// rows to refs, for COPY.
func (p *Push) queueFile(b *pgx.Batch, id int64, f *extract.File, refs [][]any) [][]any {
	e := EncodeText
	r := p.fb.Build(f)
	repo := p.repo.ID
	n, toks, tf := p.tokens(f.Path, f.Summary)
	p.pb.add(0, 0, n, 0, &p.tf)
	p.stat("files", 1, int64(n))
	b.Queue(insFile, repo, id, e(f.Path), e(f.Ext), e(f.Language), f.Size, f.Lines, r.Hash, e(r.Imports), e(r.Exports),
		e(f.Doc), e(f.Summary), e(f.ParseStatus), e(f.ParseProblem), p.now, n, toks, tf)
	for i := range r.Symbols {
		s := &r.Symbols[i]
		n, toks, tf := p.tokens(s.Name, s.Qualname, s.Signature, s.Doc, s.IdentParts)
		p.pb.add(1, i, n, s.StartLine, &p.tf)
		p.stat("symbols", 1, int64(n))
		b.Queue(insSymbol, repo, s.SID, id, i, e(s.Kind), e(s.Name), e(s.Qualname), s.ParentSID, s.StartLine, s.EndLine,
			s.StartByte, s.EndByte, e(s.Signature), e(s.Doc), s.Exported, e(s.Decorators), e(s.Identifiers), e(s.IdentParts),
			e(s.Calls), e(s.Strings), s.Hash, n, toks, tf, p.tf.colKeys(3))
	}
	for i := range r.Chunks {
		c := &r.Chunks[i]
		n, toks, tf := p.tokens(c.Header, c.Content, c.IdentParts, c.Strings)
		p.pb.add(2, i, n, c.StartLine, &p.tf)
		p.stat("chunks", 1, int64(n))
		b.Queue(insChunk, repo, c.CID, id, c.StartLine, c.EndLine, c.StartByte, c.EndByte, c.SymbolSID, e(c.Header), e(c.Content),
			e(c.Identifiers), e(c.IdentParts), e(c.Calls), e(c.Strings), c.Hash, n, toks, i, tf)
	}
	for _, x := range r.Refs {
		refs = append(refs, []any{repo, id, x.Row, e(x.Kind), e(x.Name), e(x.NameLower), e(x.Target), x.N, x.Uses})
	}
	p.posts = p.pb.rows(repo, id, p.posts)
	return refs
}

// Commit makes the push visible: the shard's transaction commits (readers
// move from the old snapshot to the new one at once), then the catalog
// records the repository's new snapshot, files, bytes and head commit.
// The push lock is released either way.
func (p *Push) Commit(ctx context.Context, head string) (Repo, error) {
	defer p.Rollback()
	if p.tx == nil {
		return Repo{}, errors.New("push: commit after commit or rollback")
	}
	tbls := make([]string, 0, len(p.stats))
	for t := range p.stats {
		tbls = append(tbls, t)
	}
	sort.Strings(tbls)
	for _, t := range tbls {
		s := p.stats[t]
		_, err := p.tx.Exec(ctx, `INSERT INTO fts_stats(repo_id, tbl, rows, tokens) VALUES ($1, $2, $3, $4)
			ON CONFLICT (repo_id, tbl) DO UPDATE SET rows = fts_stats.rows + excluded.rows, tokens = fts_stats.tokens + excluded.tokens`,
			p.repo.ID, t, s.Rows, s.Tokens)
		if err != nil {
			return Repo{}, p.fail("table statistics", err)
		}
	}
	// The postings are complete when they were, or when this push wrote
	// every file (postings.go).
	complete := p.postings
	if !complete {
		complete = true
		for path := range p.states {
			complete = complete && p.wrote[path]
		}
	}
	// Readers' caches key on the version: bump it with the facts.
	if _, err := p.tx.Exec(ctx, `INSERT INTO repo_state(repo_id, version, facts_version, postings) VALUES ($1, 1, $2, $3)
		ON CONFLICT (repo_id) DO UPDATE SET version = repo_state.version + 1, facts_version = excluded.facts_version, postings = excluded.postings`,
		p.repo.ID, strconv.Itoa(extract.FactsVersion), complete); err != nil {
		return Repo{}, p.fail("version", err)
	}
	if err := p.tx.Commit(ctx); err != nil {
		return Repo{}, p.fail("commit", err)
	}
	p.tx = nil
	var files, bytes int64
	for _, s := range p.states {
		files++
		bytes += s.Size
	}
	_, err := p.lock.Exec(ctx, `UPDATE repos SET snapshot = snapshot + 1, files = $2, bytes = $3, head_commit = $4, updated_at = now()
		WHERE id = $1`, p.repo.ID, files, bytes, head)
	if err != nil {
		return Repo{}, fmt.Errorf("push %s: committed to %s, but the catalog was not updated: %w", p.repo.Name, p.shardAt, err)
	}
	return p.cat.Repo(ctx, All, p.repo.Name)
}

// Rollback abandons the push (when it has not committed) and releases its
// lock and connections. It is safe to call more than once.
func (p *Push) Rollback() {
	// Cleanup runs whether or not the push's context ended, but never
	// waits long on a server that stopped answering.
	bg, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	if p.tx != nil {
		_ = p.tx.Rollback(bg)
		p.tx = nil
	}
	if p.shard != nil {
		p.shard.Close()
		p.shard = nil
	}
	if p.lock != nil {
		_, _ = p.lock.Exec(bg, `SELECT pg_advisory_unlock_all()`)
		p.lock.Release()
		p.lock = nil
	}
}

// lastPerPath drops nil files and all but the last file of each path.
func lastPerPath(files []*extract.File) []*extract.File {
	last := make(map[string]int, len(files))
	for i, f := range files {
		if f != nil {
			last[f.Path] = i
		}
	}
	out := make([]*extract.File, 0, len(last))
	for i, f := range files {
		if f != nil && last[f.Path] == i {
			out = append(out, f)
		}
	}
	return out
}
