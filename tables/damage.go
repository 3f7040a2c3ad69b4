package tables

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/viberag/viberag/tables/postings"
)

// ErrDamaged means the index file is damaged: not an SQLite file, cut
// short, or failing SQLite's integrity check. The index is derived data;
// the remedy is a rebuild (package indexer moves the file aside and
// rebuilds it).
var ErrDamaged = errors.New("index is damaged")

// IsCorrupt reports whether err comes from SQLite finding the file
// damaged (SQLITE_CORRUPT, "database disk image is malformed", or
// SQLITE_NOTADB, "file is not a database"), or wraps ErrDamaged or
// postings.ErrCorrupt (stored postings that do not decode).
func IsCorrupt(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrDamaged) || errors.Is(err, postings.ErrCorrupt) {
		return true
	}
	if code, ok := sqliteCode(err); ok {
		switch code & 0xff {
		case codeCorrupt, codeNotADB:
			return true
		}
	}
	// Some paths report corruption only as text.
	msg := err.Error()
	return strings.Contains(msg, "database disk image is malformed") || strings.Contains(msg, "file is not a database")
}

// IsFull reports whether err is a write that found no room: SQLite's
// "database or disk is full", or the system's no space, quota exceeded
// or file too large.
func IsFull(err error) bool {
	if err == nil {
		return false
	}
	if code, ok := sqliteCode(err); ok && code&0xff == codeFull {
		return true
	}
	if errno, ok := sqliteErrno(err); ok && isNoSpace(errno) {
		return true
	}
	return isNoSpace(err) || strings.Contains(err.Error(), "database or disk is full")
}

// HeaderProblem reads the 100-byte SQLite header of the file at path and
// says what is wrong with it, "" when nothing is. A missing or empty file
// is not a problem (Open creates the index). It is cheap and reads no
// page but the first: a file that is not SQLite at all is certain damage,
// while a file shorter than its header says (cut short, or caught in
// another process's checkpoint) is only a reason to run QuickCheck.
//
// suspect is true when the problem needs QuickCheck to be sure; false
// when the file is certainly not a usable index.
func HeaderProblem(path string) (problem string, suspect bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	if fi.Size() == 0 {
		return "", false, nil
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Sprintf("file is %d bytes, shorter than an SQLite header", fi.Size()), false, nil
		}
		return "", false, err
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return "not an SQLite file (bad magic)", false, nil
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return fmt.Sprintf("bad page size %d in the header", pageSize), false, nil
	}
	// The page count at offset 28 is valid when the change counter (24)
	// equals the version-valid-for number (92).
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	if binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96]) && fi.Size() < pages*pageSize {
		return fmt.Sprintf("file is %d bytes, its header says %d pages of %d", fi.Size(), pages, pageSize), true, nil
	}
	return "", false, nil
}

// QuickCheck runs SQLite's quick_check on a connection of its own: every
// b-tree page, cell and free list (not whether indexes match their
// tables; Check reads the word and trigram indexes). It reads the whole
// file: about as long as reading it from disk. The error wraps
// ErrDamaged when the file is damaged; any other error is about running
// the check.
func QuickCheck(ctx context.Context, path string) error {
	pool, err := openPool(path, readerParams(true, false))
	if err != nil {
		return fmt.Errorf("quick check %s: %w", path, err)
	}
	defer pool.Close()
	var problems []string
	if err := collectCheck(ctx, pool, `PRAGMA quick_check`, &problems); err != nil {
		if IsCorrupt(err) {
			return fmt.Errorf("quick check %s: %w: %w", path, ErrDamaged, err)
		}
		return fmt.Errorf("quick check %s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("quick check %s: %w: %s", path, ErrDamaged, summarise(problems))
	}
	return nil
}

// collectCheck runs an integrity pragma and appends every line but "ok".
func collectCheck(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, stmt string, problems *[]string) error {
	rows, err := q.QueryContext(ctx, stmt)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		if s != "ok" {
			*problems = append(*problems, s)
		}
	}
	return rows.Err()
}

// summarise joins the first few problems of a check; a damaged file can
// produce thousands.
func summarise(problems []string) string {
	const show = 3
	s := strings.ReplaceAll(strings.Join(problems[:min(show, len(problems))], "; "), "\n", " ")
	if len(problems) > show {
		s += fmt.Sprintf("; and %d more", len(problems)-show)
	}
	return s
}

// CopyEmbedCache fills the index's embedding cache with every vector of the
// index at from (its vectors and its own cache), read-only, so a rebuild
// into a new file (`viberag index --force`) does not pay the embedding
// provider again for unchanged text. It returns how many vectors it
// copied. The other index is only read; an error (it is damaged, or of
// another schema) leaves this index as it was.
func (store *VectorStore) CopyEmbedCache(ctx context.Context, from string) (n int64, err error) {
	if store.db.w == nil {
		return 0, store.db.errReadOnly("copy embedding cache")
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("copy embedding cache from %s: %w", from, err)
		}
	}()
	conn, err := store.db.w.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	u := "file:" + (&url.URL{Path: filepath.ToSlash(from)}).EscapedPath() + "?mode=ro"
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS old`, u); err != nil {
		return 0, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE old`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO main.embed_cache(model, key, vec)
		SELECT model, input_hash, vec FROM old.vectors
		UNION ALL SELECT model, key, vec FROM old.embed_cache`)
	if err != nil {
		return 0, err
	}
	if n, err = res.RowsAffected(); err != nil {
		return 0, err
	}
	return n, tx.Commit()
}
