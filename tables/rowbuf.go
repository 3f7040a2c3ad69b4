package tables

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// rowsPerInsert is the number of rows one INSERT of a rowBuffer writes.
// A symbol row is 14 values: bound one call each, and stepped once per
// row, the symbols of a cold GOROOT/src (229 k rows) cost the writer
// goroutine 3.2 M crossings into C.
const rowsPerInsert = 32

// rowBuffer writes the rows of one table rowsPerInsert at a time. Its
// statements are run through Query: mattn/go-sqlite3 resets, binds every
// value and takes the first (here the only) step in one crossing into C
// there, where Exec crosses once per value. Rows left when the batch
// ends go one statement each.
type rowBuffer struct {
	ctx       context.Context
	cols      int
	many, one *sql.Stmt
	args      []any
}

// rowInsert returns the statement inserting n rows of cols into table.
func rowInsert(table, cols string, ncols, n int) string {
	row := "(" + placeholders(ncols) + ")"
	return `INSERT INTO ` + table + `(` + cols + `) VALUES ` + strings.TrimSuffix(strings.Repeat(row+",", n), ",")
}

// add appends one row's values and writes the buffered rows once there
// are rowsPerInsert of them.
func (b *rowBuffer) add(vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < b.cols*rowsPerInsert {
		return nil
	}
	err := run(b.ctx, b.many, b.args)
	b.args = b.args[:0]
	return err
}

// flush writes the rows left.
func (b *rowBuffer) flush() error {
	for i := 0; i < len(b.args); i += b.cols {
		if err := run(b.ctx, b.one, b.args[i:i+b.cols]); err != nil {
			return err
		}
	}
	b.args = b.args[:0]
	return nil
}

// run executes an INSERT through Query (see rowBuffer).
func run(ctx context.Context, st *sql.Stmt, args []any) error {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	return nil
}
