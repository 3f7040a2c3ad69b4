package tables

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// readStmts runs the statements of the read methods on the read pool,
// each prepared once per index and kept by its SQL text.
type readStmts struct {
	pool  *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// maxCachedStmts bounds the cache: scoped statements vary with the number
// of values per filter, and a caller sending ever-new shapes must not
// grow it without end. Past the bound statements run unprepared.
const maxCachedStmts = 512

func (c *readStmts) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

// prepare returns the prepared statement for q, preparing it on first
// use. It returns nil (and no error) when the cache is full; the caller
// then runs q on the pool.
func (c *readStmts) prepare(ctx context.Context, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	s, ok := c.stmts[q]
	full := len(c.stmts) >= maxCachedStmts
	c.mu.Unlock()
	if ok || full {
		return s, nil
	}
	s, err := c.pool.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.stmts[q]; ok {
		s.Close() // another goroutine prepared it meanwhile
		return old, nil
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[q] = s
	return s, nil
}

// prepared returns the statement prepared for q, or nil.
func (c *readStmts) prepared(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[q]
}

// query runs q on the read pool through its prepared statement.
func (c *readStmts) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := c.prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.pool.QueryContext(ctx, q, args...)
	}
	return s.QueryContext(ctx, args...)
}

// queryRow is query for one row.
func (c *readStmts) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	s, err := c.prepare(ctx, q)
	if err != nil || s == nil {
		return c.pool.QueryRowContext(ctx, q, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// collect runs q and scans every row with scan.
func collect[T any](ctx context.Context, c *readStmts, q string, args []any, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := c.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return scanAll(rows, scan)
}

// scanAll scans every row of rows with scan and closes rows.
func scanAll[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// found turns sql.ErrNoRows into ok == false.
func found(err error) (ok bool, _ error) {
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
