package mcp

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// A connection's life is bounded on every path a request can take:
//
//   - waiting for a request: IdleTimeout (and ReadHeaderTimeout once its
//     first bytes arrive);
//   - reading a body: BodyTimeout from the request's start, whatever
//     handler has it — the guard, a refusal, a 404, the health check;
//   - answering: WriteTimeout for each write, so a client that stops
//     reading is cut off;
//   - refused (answered before its body was read): the answer goes out at
//     once with "Connection: close", and the connection closes when the
//     rest of the body has arrived or the body deadline passes.
//
// And whatever the deadlines, a full server makes room: at the connection
// cap each new connection closes one that is not being served — a
// refused one first, else the one that has waited longest for a request
// or its body. Only requests the guard accepted and read whole hold
// their connection until they are answered.

// bounded applies the deadlines above to every request before handler
// sees it.
type bounded struct {
	next                      http.Handler
	bodyTimeout, writeTimeout time.Duration
}

func (b *bounded) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	body := &requestBody{ReadCloser: r.Body}
	if r.Body == nil || r.Body == http.NoBody {
		body.done.Store(true)
	} else {
		// No read deadline for a request without a body: it is read
		// whole, and a deadline would end its context (the server reads
		// in the background to notice a client going away).
		_ = rc.SetReadDeadline(time.Now().Add(b.bodyTimeout))
		r.Body = body
	}
	_ = rc.SetWriteDeadline(time.Now().Add(b.writeTimeout))
	bw := &boundedWriter{ResponseWriter: w, rc: rc, timeout: b.writeTimeout, body: body, conn: connOf(r.Context())}
	b.next.ServeHTTP(bw, r)
	// The server flushes what the handler left buffered after it returns.
	_ = rc.SetWriteDeadline(time.Now().Add(b.writeTimeout))
}

// requestBody notes when a request's body has been read to its end.
type requestBody struct {
	io.ReadCloser
	done atomic.Bool
}

func (b *requestBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.done.Store(true)
	}
	return n, err
}

// boundedWriter gives every write and flush its own deadline — a client
// that stops reading is cut off after timeout, while a stream that is
// merely quiet (a long index run) lives on — and closes the connection
// after an answer given before the request's body was read: net/http
// would otherwise read (and wait for) up to 256 KiB of a body nobody
// wants before sending the answer.
type boundedWriter struct {
	http.ResponseWriter
	rc          *http.ResponseController
	timeout     time.Duration
	body        *requestBody
	conn        *limitedConn
	wroteHeader bool
}

func (w *boundedWriter) WriteHeader(code int) {
	if !w.wroteHeader && code >= 200 {
		w.wroteHeader = true
		if !w.body.done.Load() {
			w.Header().Set("Connection", "close")
			w.conn.shedLater(true)
		}
	}
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	w.ResponseWriter.WriteHeader(code)
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.ResponseWriter.Write(p)
}

func (w *boundedWriter) FlushError() error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.rc.Flush()
}

func (w *boundedWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the connection.
func (w *boundedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serving marks r accepted: its body has been read and it is served from
// here on, however long that takes — no read deadline (the server's
// background read would end the request's context), and its connection
// is not shed.
func serving(w http.ResponseWriter, r *http.Request) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	connOf(r.Context()).serving()
}

// connLimit is a listener that keeps at most max connections open, so
// running out of descriptors never starves the index. To accept one more
// at the cap it closes a connection that is not being served: a refused
// one first (its answer is sent), else the one that has waited longest
// for a request or for its body. Only while every connection is being
// served does Accept wait, and new clients with it in the kernel's queue.
// Without shedding, stalled connections would hold every slot until
// their deadlines.
type connLimit struct {
	net.Listener
	max int

	mu        sync.Mutex
	room      *sync.Cond // signalled when a connection closes or becomes sheddable
	open      int        // connections accepted and not closed, and one being accepted
	sheddable map[*limitedConn]shedState
	closed    bool
}

// shedState is a sheddable connection's: since when it has had no
// request being served, and whether its last request was refused.
type shedState struct {
	since   time.Time
	refused bool
}

func newConnLimit(ln net.Listener, max int) *connLimit {
	l := &connLimit{Listener: ln, max: max, sheddable: map[*limitedConn]shedState{}}
	l.room = sync.NewCond(&l.mu)
	return l
}

// Accept makes room for one more connection, then accepts it.
func (l *connLimit) Accept() (net.Conn, error) {
	l.mu.Lock()
	for l.open >= l.max && !l.closed {
		if v := l.victim(); v != nil {
			l.mu.Unlock()
			v.Close()
			l.mu.Lock()
			continue
		}
		l.room.Wait()
	}
	if l.closed {
		l.mu.Unlock()
		return nil, net.ErrClosed
	}
	l.open++
	l.mu.Unlock()
	c, err := l.Listener.Accept()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.open--
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l}
	l.sheddable[lc] = shedState{since: time.Now()}
	return lc, nil
}

// Close stops accepting, and wakes an Accept waiting for room.
func (l *connLimit) Close() error {
	l.mu.Lock()
	l.closed = true
	l.room.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}

// victim is the sheddable connection to close for room; nil when every
// connection is being served.
func (l *connLimit) victim() *limitedConn {
	var victim *limitedConn
	var best shedState
	for c, st := range l.sheddable {
		if victim == nil || st.refused && !best.refused || st.refused == best.refused && st.since.Before(best.since) {
			victim, best = c, st
		}
	}
	return victim
}

// state follows net/http's connection states (http.Server.ConnState): a
// request being read, or the next one awaited, makes a connection
// sheddable again.
func (l *connLimit) state(conn net.Conn, st http.ConnState) {
	c, ok := conn.(*limitedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateActive, http.StateIdle:
		c.shedLater(false)
	case http.StateHijacked:
		c.serving()
	}
}

// connContext puts the connection in its requests' context
// (http.Server.ConnContext), for serving and boundedWriter.
func (l *connLimit) connContext(ctx context.Context, conn net.Conn) context.Context {
	if c, ok := conn.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

type connKey struct{}

// connOf is the connection of a request's context; nil (whose methods do
// nothing) when the request did not come through a connLimit.
func connOf(ctx context.Context) *limitedConn {
	c, _ := ctx.Value(connKey{}).(*limitedConn)
	return c
}

// limitedConn is a connection counted by its connLimit.
type limitedConn struct {
	net.Conn
	l      *connLimit
	closed bool // guarded by l.mu
}

func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	if !c.closed {
		c.closed = true
		c.l.open--
		delete(c.l.sheddable, c)
		c.l.room.Broadcast()
	}
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// shedLater makes the connection sheddable, unless it is closed:
// refused, first of all; else as waiting since now.
func (c *limitedConn) shedLater(refused bool) {
	if c == nil {
		return
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.closed {
		return
	}
	st, ok := c.l.sheddable[c]
	if !ok || !refused {
		st = shedState{since: time.Now()}
	}
	st.refused = refused
	c.l.sheddable[c] = st
	c.l.room.Broadcast()
}

// serving exempts the connection from shedding until its request ends.
func (c *limitedConn) serving() {
	if c == nil {
		return
	}
	c.l.mu.Lock()
	delete(c.l.sheddable, c)
	c.l.mu.Unlock()
}
