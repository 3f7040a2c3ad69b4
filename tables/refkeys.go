package tables

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/viberag/viberag/tables/postings"
)

// ref_keys and ref_imports (schema.sql) map a key (a lower-cased name, an
// imported name) to the ids of the files whose refs hold it, as one id
// list per key (postings.AppendIDs). One row per key
// rather than per (key, file) is a third of the bytes (10,842 rows for
// 34,398 pairs on GOROOT/src/net); a batch reads and rewrites the list of
// each key its files add or drop.

// postingEdits collects a batch's changes to one key table: per key, the
// files that stop using it (their old rows were cleared) and the files
// that use it now (written by the batch). A file re-written keeps its id,
// so it can be in both.
type postingEdits struct {
	del, add map[string][]int64
}

func newPostingEdits() postingEdits {
	return postingEdits{del: map[string][]int64{}, add: map[string][]int64{}}
}

func (e *postingEdits) reset() {
	clear(e.del)
	clear(e.add)
}

// postingStmts are the statements of one key table. getMany reads the
// stored lists of postingReadKeys keys at once: one statement per key
// cost a tenth of the writer's CPU, nearly all of it in database/sql.
// putMany writes postingPutRows lists at once (an upsert), for the same
// reason.
type postingStmts struct {
	getMany, putMany, ins, upd, del *sql.Stmt
}

// postingPutRows is the number of lists putMany writes.
const postingPutRows = 100

// postingPutMany returns the statement text of postingStmts.putMany for
// the key column col of table.
func postingPutMany(table, col string) string {
	return `INSERT INTO ` + table + `(` + col + `, files) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?,?),", postingPutRows), ",") +
		` ON CONFLICT(` + col + `) DO UPDATE SET files = excluded.files`
}

// postingReadKeys is the number of keys getMany takes.
const postingReadKeys = 200

// postingGetMany returns the statement text of postingStmts.getMany for
// the key column col of table.
func postingGetMany(table, col string) string {
	return `SELECT ` + col + `, files FROM ` + table + ` WHERE ` + col + ` IN (` + placeholders(postingReadKeys) + `)`
}

// readPostings sets stored to the stored lists of keys (at most
// postingReadKeys); a key without a row is left out.
func (bw *batchWriter) readPostings(st postingStmts, keys []string, args []any, stored map[string][]byte) error {
	clear(stored)
	for i := range args {
		// Unused places repeat the last key: IN ignores duplicates.
		args[i] = keys[min(i, len(keys)-1)]
	}
	rows, err := st.getMany.QueryContext(bw.ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var files []byte
		if err := rows.Scan(&k, &files); err != nil {
			return err
		}
		stored[k] = files
	}
	return rows.Err()
}

// flushPostings applies edits to their table, key by key in key order:
// the stored list less the files dropped, plus the files added; a key no
// file uses any more loses its row.
func (bw *batchWriter) flushPostings(st postingStmts, edits *postingEdits) error {
	keys := make([]string, 0, len(edits.add)+len(edits.del))
	for k := range edits.add {
		keys = append(keys, k)
	}
	for k := range edits.del {
		if _, ok := edits.add[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var ids []int64
	var buf []byte
	args := make([]any, postingReadKeys)
	stored := make(map[string][]byte, postingReadKeys)
	// Lists to write are held until putMany takes postingPutRows of
	// them; those left at the end are written one by one.
	puts := make([]any, 0, 2*postingPutRows)
	var hadRow []bool // per list in puts: it had a row
	for i, k := range keys {
		if i%postingReadKeys == 0 {
			if err := bw.readPostings(st, keys[i:min(i+postingReadKeys, len(keys))], args, stored); err != nil {
				return fmt.Errorf("read lists: %w", err)
			}
		}
		old, found := stored[k]
		if found && old == nil {
			old = []byte{} // an empty list still has its row
		}
		var err error
		if ids, err = postings.DecodeIDs(ids[:0], old); err != nil {
			return fmt.Errorf("%q: %w", k, err)
		}
		if del := edits.del[k]; len(del) > 0 {
			slices.Sort(del)
			ids = slices.DeleteFunc(ids, func(id int64) bool {
				_, found := slices.BinarySearch(del, id)
				return found
			})
		}
		ids = append(ids, edits.add[k]...)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		if len(ids) == 0 {
			if old != nil {
				if _, err := st.del.ExecContext(bw.ctx, k); err != nil {
					return fmt.Errorf("%q: %w", k, err)
				}
			}
			continue
		}
		// Each list gets its own slice of buf: puts holds them until
		// written, and a grown buf leaves the earlier ones in place.
		start := len(buf)
		buf = postings.AppendIDs(buf, ids)
		puts = append(puts, k, buf[start:len(buf):len(buf)])
		hadRow = append(hadRow, old != nil)
		if len(puts) == cap(puts) {
			// Through Query: one crossing into C for its 200 values (run).
			if err := run(bw.ctx, st.putMany, puts); err != nil {
				return fmt.Errorf("%q…%q: %w", puts[0], k, err)
			}
			puts, hadRow, buf = puts[:0], hadRow[:0], nil
		}
	}
	for i := 0; i < len(puts); i += 2 {
		put := st.ins
		if hadRow[i/2] {
			put = st.upd
		}
		if _, err := put.ExecContext(bw.ctx, puts[i], puts[i+1]); err != nil {
			return fmt.Errorf("%q: %w", puts[i], err)
		}
	}
	edits.reset()
	return nil
}
