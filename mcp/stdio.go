package mcp

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of LineTransport.
const (
	// DefaultMaxLineBytes bounds one inbound line. Requests to viberag's
	// tools are small (a query, a path); a longer line is refused with
	// -32600 without being buffered.
	DefaultMaxLineBytes = 4 << 20
	// DefaultMaxInFlight bounds requests read but not yet answered. While
	// it is reached the transport stops reading, so a client that
	// pipelines 100,000 requests costs this many, not 100,000.
	DefaultMaxInFlight = 32
)

// LineTransport is newline-delimited JSON-RPC over a byte stream (the MCP
// stdio transport) that survives its client: where the SDK's transport
// ends the session at the first line it cannot decode (go-sdk #1209),
// this one answers a bad line with a JSON-RPC error (id null) and reads
// on. It also:
//
//   - echoes every request id byte for byte (the SDK keeps ids as int64
//     or string, so 1.5 would come back as 1, and 2^63 altered): requests reach
//     the SDK under ids of its own, and answers go out under the client's;
//   - refuses ids MCP forbids (null, objects, arrays, booleans) with
//     -32600;
//   - answers a batch (JSON-RPC 2.0, MCP 2025-03-26) with one array, an
//     error for each invalid member;
//   - gives every error a JSON-RPC code (-32603 where the SDK's has none);
//   - stops reading while MaxInFlight requests await their answer, so
//     memory stays flat however many requests a client pipelines. (A
//     handler must then not wait for a message from the client; viberag's
//     tools send the client notifications only, never requests.)
type LineTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxLineBytes bounds one line (default DefaultMaxLineBytes);
	// MaxInFlight bounds unanswered requests (default DefaultMaxInFlight).
	MaxLineBytes, MaxInFlight int
	// Logger receives what the client cannot be told; nil discards.
	Logger *slog.Logger
}

// Connect implements sdk.Transport. It starts the reading goroutine.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{
		r: t.Reader, w: t.Writer, log: t.Logger,
		maxLine:  t.MaxLineBytes,
		slots:    make(chan struct{}, cmp.Or(max(0, t.MaxInFlight), DefaultMaxInFlight)),
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		pending:  make(map[int64]pendingReq),
		byRaw:    make(map[string]int64),
	}
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLineBytes
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	go c.readLoop()
	return c, nil
}

// lineConn is a LineTransport's connection.
type lineConn struct {
	r       io.ReadCloser
	w       io.WriteCloser
	log     *slog.Logger
	maxLine int

	slots    chan struct{}        // one per request in flight
	incoming chan jsonrpc.Message // closed when the input ends
	closed   chan struct{}
	once     sync.Once

	writeMu sync.Mutex

	mu      sync.Mutex
	next    int64                // last id handed to the SDK
	pending map[int64]pendingReq // SDK id → the client's request
	byRaw   map[string]int64     // the client's id → SDK id, for cancellations
}

// SessionID implements sdk.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

// Read implements sdk.Connection. It returns io.EOF when the input ends
// or the connection is closed, and never a decode error: those are
// answered to the client by the reading goroutine.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m, ok := <-c.incoming:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements sdk.Connection. An answer to a client's request goes
// out under the id the client sent (in its batch, when it came in one),
// and frees its in-flight slot.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if p, mine := c.release(resp.ID); mine {
			data := encodeResponse(p.raw, resp.Result, resp.Error)
			if p.batch != nil {
				if data = p.batch.add(data); data == nil {
					return nil // the batch is not complete yet
				}
			}
			return c.writeLine(data)
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode %T: %w", msg, err)
	}
	return c.writeLine(data)
}

// pendingReq is a request handed to the SDK and not yet answered.
type pendingReq struct {
	raw   json.RawMessage // its id as the client sent it
	batch *batch          // the batch it came in, if any
}

// batch collects the answers to one batch of requests, which go out
// together as one array (JSON-RPC 2.0 batches; MCP 2025-03-26).
type batch struct {
	mu      sync.Mutex
	pending int      // requests not yet answered
	replies [][]byte // answers so far, errors for invalid members first
}

// add records an answer and returns the batch's line once it is complete.
func (b *batch) add(reply []byte) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if reply != nil {
		b.replies = append(b.replies, reply)
	}
	if b.pending--; b.pending > 0 {
		return nil
	}
	return b.line()
}

// line is the batch's answers as one JSON array (b.mu held or unshared).
func (b *batch) line() []byte {
	return append(append([]byte("["), bytes.Join(b.replies, []byte(","))...), ']')
}

// Close implements sdk.Connection. A read blocked on a terminal may stay
// blocked (there is no portable way to interrupt it), but Read returns.
func (c *lineConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = errors.Join(c.r.Close(), c.w.Close())
	})
	return err
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// release forgets an answered request and returns it; mine is false for
// an id this connection did not hand out.
func (c *lineConn) release(id jsonrpc.ID) (p pendingReq, mine bool) {
	n, ok := id.Raw().(int64)
	if !ok {
		return p, false
	}
	c.mu.Lock()
	p, mine = c.pending[n]
	if mine {
		delete(c.pending, n)
		if c.byRaw[string(p.raw)] == n {
			delete(c.byRaw, string(p.raw))
		}
	}
	c.mu.Unlock()
	if mine {
		<-c.slots
	}
	return p, mine
}

// readLoop reads lines until the input ends or the connection closes.
func (c *lineConn) readLoop() {
	defer close(c.incoming)
	br := bufio.NewReaderSize(c.r, 64<<10)
	var buf []byte
	for {
		line, tooLong, err := readLine(br, c.maxLine, buf[:0])
		buf = line[:0]
		if tooLong {
			c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: line longer than %d bytes", c.maxLine))
		} else if len(line) > 0 && !c.handleLine(line) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.log.Warn("stdio: reading input", "error", err)
			}
			c.drain()
			return
		}
		select {
		case <-c.closed:
			return
		default:
		}
	}
}

// drain waits, after the input ended, until every request read has been
// answered (or the connection closed): a client may close its side and
// still read the answers (`printf '…' | viberag mcp`), and ending the
// session at once would cancel them.
func (c *lineConn) drain() {
	for range cap(c.slots) {
		select {
		case c.slots <- struct{}{}:
		case <-c.closed:
			return
		}
	}
}

// readLine returns the next line without its newline, or tooLong (and no
// line) when it is longer than max bytes: the rest of such a line is read
// and dropped, never buffered. A last line without a newline is returned
// with io.EOF.
func readLine(br *bufio.Reader, max int, buf []byte) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(frag) > max+2 { // room for "\r\n"
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		return buf, false, err
	}
}

// deliver hands m to the SDK; false when the connection closed first.
func (c *lineConn) deliver(m jsonrpc.Message) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// reject answers a line that is no valid request: id is the request's id
// when it could be read, else null.
func (c *lineConn) reject(id json.RawMessage, code int64, msg string) {
	if err := c.writeLine(encodeResponse(id, nil, &jsonrpc.Error{Code: code, Message: msg})); err != nil {
		c.log.Warn("stdio: writing an error reply", "error", err)
	}
}

// bom is the UTF-8 byte order mark some Windows tools put first.
var bom = []byte("\xef\xbb\xbf")

// handleLine hands the message or batch on one line to the SDK, or
// answers it with an error (a line that is not Unicode text, see
// checkUnicode, among them); false when the connection closed meanwhile.
// Blocks while MaxInFlight requests are pending.
func (c *lineConn) handleLine(line []byte) bool {
	line = bytes.TrimSpace(bytes.TrimPrefix(line, bom))
	if len(line) == 0 {
		return true
	}
	if err := checkUnicode(line); err != nil {
		c.reject(requestID(line), jsonrpc.CodeParseError, err.Error())
		return true
	}
	switch {
	case !json.Valid(line):
		c.reject(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON")
		return true
	case line[0] == '[':
		return c.handleBatch(line)
	}
	m, rawID, bad := c.decode(line)
	if bad != nil {
		c.reject(bad.id, jsonrpc.CodeInvalidRequest, bad.msg)
		return true
	}
	return m == nil || c.admit(m, rawID, nil)
}

// handleBatch hands a batch's members to the SDK; their answers go out
// together (see batch). Invalid members are answered in the batch.
func (c *lineConn) handleBatch(line []byte) bool {
	var members []json.RawMessage
	if json.Unmarshal(line, &members) != nil || len(members) == 0 {
		c.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
		return true
	}
	type member struct {
		m     jsonrpc.Message
		rawID json.RawMessage
	}
	b := &batch{}
	var ok []member
	for _, raw := range members {
		m, rawID, bad := c.decode(raw)
		switch {
		case bad != nil:
			b.replies = append(b.replies, encodeResponse(bad.id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: bad.msg}))
		case m != nil:
			ok = append(ok, member{m, rawID})
			if rawID != nil {
				b.pending++
			}
		}
	}
	if b.pending == 0 && len(b.replies) > 0 { // nothing to wait for
		if err := c.writeLine(b.line()); err != nil {
			c.log.Warn("stdio: writing an error reply", "error", err)
		}
	}
	for _, mb := range ok {
		bb := b
		if mb.rawID == nil {
			bb = nil
		}
		if !c.admit(mb.m, mb.rawID, bb) {
			return false
		}
	}
	return true
}

// admit hands m to the SDK. A request with an id (rawID) first takes an
// in-flight slot, blocking while none is free, and goes under an id of
// the SDK's own, remembered to answer under the client's.
func (c *lineConn) admit(m jsonrpc.Message, rawID json.RawMessage, b *batch) bool {
	if req, ok := m.(*jsonrpc.Request); ok && rawID != nil {
		select {
		case c.slots <- struct{}{}: // blocks while MaxInFlight are pending
		case <-c.closed:
			return false
		}
		c.mu.Lock()
		c.next++
		n := c.next
		raw := json.RawMessage(bytes.Clone(rawID))
		c.pending[n] = pendingReq{raw: raw, batch: b}
		c.byRaw[string(raw)] = n
		c.mu.Unlock()
		req.ID, _ = jsonrpc.MakeID(float64(n))
	}
	return c.deliver(m)
}

// invalid is why a message is no valid request (-32600), and the id to
// answer under (nil for null: the id could not be read).
type invalid struct {
	id  json.RawMessage
	msg string
}

// decode checks one message. It returns the message for the SDK (nil for
// one to drop) and the id of a request that needs an answer, or why it is
// no valid request.
func (c *lineConn) decode(raw []byte) (jsonrpc.Message, json.RawMessage, *invalid) {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, nil, &invalid{msg: "invalid request: a message must be a JSON object"}
	}
	rawID, hasID := obj["id"]
	idOK := hasID && validID(rawID)
	replyID := rawID
	if !idOK {
		replyID = nil
	}
	bad := func(msg string) (jsonrpc.Message, json.RawMessage, *invalid) {
		return nil, nil, &invalid{id: replyID, msg: "invalid request: " + msg}
	}
	if v, ok := obj["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return bad(`"jsonrpc" must be "2.0"`)
	}
	if hasID && !idOK {
		return bad(fmt.Sprintf("id %s is not a string or a number (MCP forbids null ids)", trunc(string(rawID))))
	}
	rawMethod, isRequest := obj["method"]
	if !isRequest {
		_, hasResult := obj["result"]
		_, hasError := obj["error"]
		if !hasID || (!hasResult && !hasError) {
			return bad(`no "method" (and not a response)`)
		}
		// An answer to a request of the server's, under the server's id.
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			c.log.Warn("stdio: dropping a response the SDK cannot decode", "error", err)
			return nil, nil, nil
		}
		return m, nil, nil
	}
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil {
		return bad(`"method" must be a string`)
	}
	req := &jsonrpc.Request{Method: method, Params: obj["params"]}
	if method == "notifications/cancelled" {
		req.Params = c.mapCancelled(req.Params)
	}
	if !hasID {
		rawID = nil // a notification
	}
	return req, rawID, nil
}

// mapCancelled rewrites the requestId of a cancellation to the id the SDK
// knows the request under; unknown ids pass unchanged (the SDK ignores
// them).
func (c *lineConn) mapCancelled(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p["requestId"] == nil {
		return params
	}
	c.mu.Lock()
	n, ok := c.byRaw[string(p["requestId"])]
	c.mu.Unlock()
	if !ok {
		return params
	}
	p["requestId"], _ = json.Marshal(n)
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// validID reports whether raw is an id MCP allows: a string or a number.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch b := raw[0]; {
	case b == '"':
		return true
	case b == '-' || (b >= '0' && b <= '9'):
		return true
	}
	return false
}

// encodeResponse is the wire form of an answer under id (null when nil).
// An error without a JSON-RPC code gets -32603 (internal error): the SDK
// leaves some errors uncoded, and code 0 is not one the spec knows.
func encodeResponse(id, result json.RawMessage, rerr error) []byte {
	type wire struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *jsonrpc.Error  `json:"error,omitempty"`
	}
	w := wire{JSONRPC: "2.0", ID: id, Error: wireError(rerr)}
	if w.ID == nil {
		w.ID = json.RawMessage("null")
	}
	if w.Error == nil {
		w.Result = result
		if w.Result == nil {
			w.Result = json.RawMessage("{}")
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		// Only a malformed result can get here; say so under the same id.
		buf.Reset()
		w.Result, w.Error = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: encoding the result: " + err.Error()}
		_ = enc.Encode(w)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// wireError is err as a JSON-RPC error object, with a spec code.
func wireError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	out := &jsonrpc.Error{Message: err.Error()}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		out.Code, out.Data = we.Code, we.Data
	}
	if out.Code == 0 {
		out.Code = jsonrpc.CodeInternalError
	}
	return out
}

// nopCloser keeps a writer open when its connection closes: standard
// output outlives the session (logs, a last message).
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
