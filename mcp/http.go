package mcp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where the streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

// TokenEnv names the environment variable holding the bearer token the
// HTTP transport requires (the CLI reads it; see HTTPOptions.Token).
const TokenEnv = "VIBERAG_MCP_TOKEN"

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is host:port to listen on. An empty host means 127.0.0.1: the
	// server is local unless asked otherwise.
	Addr string
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every request.
	Token string
	// AllowNoAuth permits a non-loopback listener without a Token. Without
	// it Listen refuses: anyone who can reach the port could read the code.
	AllowNoAuth bool
	// AllowedHosts are extra Host header names (without port) accepted
	// besides the loopback names, for a server reached under another name.
	AllowedHosts []string
	// AllowedOrigins are extra browser origins (scheme://host[:port])
	// accepted besides the server's own (a loopback name with the
	// server's port).
	AllowedOrigins []string

	// Limits; zero selects the default. MaxConns bounds open connections
	// (default: half the process's descriptor limit, at most 4096), so
	// running out of descriptors never starves the index; at the cap each
	// new connection closes one that is not being served (refused, or
	// waiting for its request or body), and only when every connection is
	// being served do new ones wait in the kernel's queue. MaxSessions
	// bounds MCP sessions (default 256): a new one evicts the session
	// idle longest, and is refused (503) when every session has a request
	// in progress.
	MaxConns, MaxSessions int
	// HeaderTimeout bounds reading a request's headers (default 10s),
	// BodyTimeout its body from the request's start (default 20s: a
	// client that sends part of a body is cut off, and so is a refused
	// one, which is answered at once), WriteTimeout any one write of a
	// response (default 30s: a client that stops reading is cut off; a
	// stream that is quiet for longer is fine), IdleTimeout a kept-alive
	// connection between requests (default 2m).
	HeaderTimeout, BodyTimeout, WriteTimeout, IdleTimeout time.Duration
}

// Defaults of HTTPOptions.
const (
	DefaultMaxConnsCap   = 4096
	DefaultMaxSessions   = 256
	DefaultHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout   = 20 * time.Second
	DefaultWriteTimeout  = 30 * time.Second
	DefaultIdleTimeout   = 2 * time.Minute
)

// withDefaults fills in the zero limits.
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxConns <= 0 {
		o.MaxConns = max(16, min(DefaultMaxConnsCap, descriptorLimit()/2))
	}
	o.MaxSessions = cmp.Or(max(0, o.MaxSessions), DefaultMaxSessions)
	o.HeaderTimeout = cmp.Or(max(0, o.HeaderTimeout), DefaultHeaderTimeout)
	o.BodyTimeout = cmp.Or(max(0, o.BodyTimeout), DefaultBodyTimeout)
	o.WriteTimeout = cmp.Or(max(0, o.WriteTimeout), DefaultWriteTimeout)
	o.IdleTimeout = cmp.Or(max(0, o.IdleTimeout), DefaultIdleTimeout)
	return o
}

// ErrNeedToken is returned by Listen for a non-loopback address without a
// token or AllowNoAuth.
var ErrNeedToken = errors.New("refusing to listen on a non-loopback address without a token: set " + TokenEnv + " (clients send it as a bearer token) or pass --allow-no-auth")

// Listen opens the listener for opts.Addr after checking the security
// rules, so the caller learns the real port (":0") before serving.
func Listen(opts HTTPOptions) (net.Listener, error) {
	addr, err := normalizeAddr(opts.Addr)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr)
	if !isLoopbackHost(host) && opts.Token == "" && !opts.AllowNoAuth {
		return nil, fmt.Errorf("listen %s: %w", addr, ErrNeedToken)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return ln, nil
}

// ServeHTTP serves the streamable HTTP transport on ln until ctx ends,
// then shuts down, giving requests in flight a few seconds. Connections
// are capped (opts.MaxConns) and every phase of a request has a deadline,
// on every path it takes (conns.go).
// An accept that fails for want of descriptors (EMFILE, ENFILE) is
// retried with a backoff of up to a second (net/http treats those errors
// as temporary and logs them).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	return serveHTTP(ctx, ln, s.HTTPHandler(ln.Addr().String(), opts), s.log, opts)
}

// serveHTTP serves handler on ln as Server.ServeHTTP describes, every
// connection's life bounded (conns.go).
func serveHTTP(ctx context.Context, ln net.Listener, handler http.Handler, log *slog.Logger, opts HTTPOptions) error {
	opts = opts.withDefaults()
	limit := newConnLimit(ln, opts.MaxConns)
	hs := &http.Server{
		Handler:           &bounded{next: handler, bodyTimeout: opts.BodyTimeout, writeTimeout: opts.WriteTimeout},
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState:         limit.state,
		ConnContext:       limit.connContext,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limit) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close() // streams still open (a client's SSE GET): cut them
	}
	return nil
}

// HTTPHandler returns the handler serving HTTPPath for a listener at
// listenAddr. It guards the SDK's handler: requests must come with an
// acceptable Host and Origin (DNS rebinding: a web page whose name
// resolves to 127.0.0.1 must not reach a local server through the
// user's browser, nor may a page of another local server) and, when a
// token is set, the bearer token; sessions are capped. ServeHTTP adds the
// connection bounds (deadlines, the connection cap).
func (s *Server) HTTPHandler(listenAddr string, opts HTTPOptions) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, guarded(s.mcp, s.log, listenAddr, opts, nil))
	return mux
}

// guarded is the MCP handler of srv behind the guard; auth, when set,
// authenticates requests between the guard and the reading of the body
// (bearer tokens of a store), so that a refused request is answered
// before its body is read.
func guarded(srv *sdk.Server, log *slog.Logger, listenAddr string, opts HTTPOptions, auth func(http.Handler) http.Handler) http.Handler {
	opts = opts.withDefaults()
	host, port, _ := net.SplitHostPort(listenAddr)
	host = strings.ToLower(strings.Trim(host, "[]"))
	var h http.Handler = &admission{
		next: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
			Logger: log,
			// The guard checks Host itself: case-insensitively (the SDK's
			// check refuses "LOCALHOST"), with the port, and for configured
			// names.
			DisableLocalhostProtection: true,
			SessionTimeout:             30 * time.Minute,
		}),
		sessions:    &sessionCap{max: opts.MaxSessions, srv: srv, last: map[string]time.Time{}, busy: map[string]int{}},
		bodyTimeout: opts.BodyTimeout,
	}
	if auth != nil {
		h = auth(h)
	}
	g := &guard{authed: auth != nil,
		next: h, token: opts.Token, loopback: isLoopbackHost(host), port: port,
		viaLoopback: isLoopbackHost(host) || isUnspecified(host),
	}
	if !g.loopback && host != "" && !isUnspecified(host) {
		g.self = host
	}
	for _, hn := range opts.AllowedHosts {
		g.hosts = append(g.hosts, strings.ToLower(strings.Trim(hn, "[]")))
	}
	for _, o := range opts.AllowedOrigins {
		if n, ok := normalizeOrigin(o); ok {
			g.origins = append(g.origins, n)
		}
	}
	return g
}

// guard enforces the Host, Origin and token rules before anything reads
// the request's body.
type guard struct {
	next        http.Handler
	token       string
	authed      bool     // next authenticates every request itself (bearer tokens of a store)
	loopback    bool     // listening on loopback only
	viaLoopback bool     // loopback names reach the server (loopback or unspecified listener)
	self        string   // the listener's own host, when it is a specific non-loopback one
	port        string   // the listener's port
	hosts       []string // configured Host names, any port
	origins     []string // configured origins, normalized
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostOK(r.Host) {
		http.Error(w, "forbidden: Host "+trunc(r.Host)+" is not accepted (DNS rebinding protection; add the name with --allowed-host)", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originOK(o) {
		http.Error(w, "forbidden: Origin "+trunc(o)+" is not accepted (add it with --allowed-origin)", http.StatusForbidden)
		return
	}
	if g.token != "" {
		auth := r.Header.Get("Authorization")
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(tok), []byte(g.token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="viberag"`)
			http.Error(w, "unauthorized: send Authorization: Bearer <token> (the value of "+TokenEnv+")", http.StatusUnauthorized)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// admission reads an accepted request's body whole, refuses one that is
// not Unicode text (checkUnicode), then serves it within the session cap.
type admission struct {
	next        http.Handler
	sessions    *sessionCap
	bodyTimeout time.Duration
}

func (a *admission) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		// The whole body, read here within the body deadline: a client
		// that stalls mid-body holds no session slot and is cut off.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, sdk.DefaultMaxRequestBodyBytes))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, fmt.Sprintf("request body larger than %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, fmt.Sprintf("request body not received within %s: %v", a.bodyTimeout, err), http.StatusRequestTimeout)
			return
		}
		if err := checkUnicode(body); err != nil {
			refuseNonUnicode(w, body, err) // the SDK would decode it into other text
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	// From here a long answer streamed on this request lives.
	serving(w, r)

	id := r.Header.Get(sessionIDHeader)
	if id != "" {
		// A session's event stream (GET) stays open as long as its
		// client lives; only requests (POST, DELETE) make it busy.
		if r.Method != http.MethodGet && a.sessions.begin(id) {
			defer a.sessions.end(id)
		}
		a.next.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost {
		a.next.ServeHTTP(w, r) // the SDK refuses it
		return
	}
	// A POST without a session starts one.
	if !a.sessions.reserve() {
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("service unavailable: all %d MCP sessions are busy; retry later (a client ends its session with DELETE)", a.sessions.max), http.StatusServiceUnavailable)
		return
	}
	ow := &openingWriter{ResponseWriter: w, cap: a.sessions}
	defer ow.open()
	a.next.ServeHTTP(ow, r)
}

// openingWriter ends a session's reservation when the response that
// names the session starts, before its client can read the id: a client
// that sends its next request before the handler has returned must find
// the session known, or that request would not count as in progress and
// the session could be evicted under it.
type openingWriter struct {
	http.ResponseWriter
	cap  *sessionCap
	done bool
}

func (w *openingWriter) open() {
	if !w.done {
		w.done = true
		w.cap.opened(w.Header().Get(sessionIDHeader))
	}
}

func (w *openingWriter) WriteHeader(code int) {
	w.open()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(b []byte) (int, error) {
	w.open()
	return w.ResponseWriter.Write(b)
}

// Flush and Unwrap keep the SDK's event streams flushing through the
// wrapper.
func (w *openingWriter) Flush() {
	w.open()
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sessionIDHeader is the streamable HTTP transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// hostOK accepts the server's own names with its port (loopback names
// when loopback reaches it, the listener's own address), configured
// names with any port, and, behind a token on a non-loopback listener
// without configured names, any name: the token already proves the
// caller is no browser page. Names compare case-insensitively.
func (g *guard) hostOK(hostport string) bool {
	h, port := hostport, "80"
	if hh, p, err := net.SplitHostPort(hostport); err == nil {
		h, port = hh, p
	}
	h = strings.ToLower(strings.Trim(h, "[]"))
	switch {
	case h == "":
		return false
	case slices.Contains(g.hosts, h):
		return true
	case g.isSelf(h):
		return port == g.port
	}
	return !g.loopback && (g.token != "" || g.authed) && len(g.hosts) == 0
}

func (g *guard) isSelf(h string) bool {
	return (g.viaLoopback && isLoopbackHost(h)) || (g.self != "" && h == g.self)
}

// originOK accepts configured origins and the server's own: http or
// https, one of its own names, its port. A page of another local server
// (another port) is not the server's.
func (g *guard) originOK(origin string) bool {
	n, ok := normalizeOrigin(origin)
	if !ok {
		return false
	}
	if slices.Contains(g.origins, n) {
		return true
	}
	u, _ := url.Parse(n)
	return g.isSelf(strings.Trim(u.Hostname(), "[]")) && u.Port() == g.port
}

// normalizeOrigin lowercases an origin's scheme and host and makes its
// port explicit ("HTTP://LocalHost" is "http://localhost:80").
func normalizeOrigin(origin string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme == "http" && port == "":
		port = "80"
	case scheme == "https" && port == "":
		port = "443"
	case scheme != "http" && scheme != "https":
		return "", false
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(strings.Trim(u.Hostname(), "[]")), port), true
}

// sessionCap bounds the server's MCP sessions: when a new one would pass
// the cap, the session idle longest (no request in progress; an open
// event stream does not count) is closed; its client gets 404 on its
// next request and, as the protocol says, starts a new session.
type sessionCap struct {
	max int
	srv *sdk.Server

	mu      sync.Mutex
	last    map[string]time.Time // session id → its last request
	busy    map[string]int       // session id → requests in progress
	opening int                  // sessions being created
}

// begin records a request of session id starting; false when the
// session is not one the cap knows (closed, or never opened: the SDK
// answers 404), and then end must not be called.
func (c *sessionCap) begin(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.last[id]; !ok {
		return false
	}
	c.last[id] = time.Now()
	c.busy[id]++
	return true
}

// end records the end of a request begin counted.
func (c *sessionCap) end(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.last[id]; !ok {
		return // evicted meanwhile
	}
	c.last[id] = time.Now()
	if c.busy[id]--; c.busy[id] <= 0 {
		delete(c.busy, id)
	}
}

// oldestIdle is the session without a request in progress whose last
// request is oldest, or "" when every session is busy.
func oldestIdle(last map[string]time.Time, busy map[string]int) string {
	var victim string
	var oldest time.Time
	for id, t := range last {
		if busy[id] == 0 && (victim == "" || t.Before(oldest)) {
			victim, oldest = id, t
		}
	}
	return victim
}

// reserve makes room for a new session, evicting the one idle longest
// when the cap is reached; false when every session is busy.
func (c *sessionCap) reserve() bool {
	c.mu.Lock()
	if len(c.last)+c.opening < c.max {
		c.opening++
		c.mu.Unlock()
		return true
	}
	// Forget sessions that ended (timed out, deleted, evicted).
	live := map[string]*sdk.ServerSession{}
	for ss := range c.srv.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range c.last {
		if live[id] == nil {
			delete(c.last, id)
			delete(c.busy, id)
		}
	}
	var victim string
	if len(c.last)+c.opening >= c.max {
		if victim = oldestIdle(c.last, c.busy); victim == "" {
			c.mu.Unlock()
			return false
		}
		delete(c.last, victim)
	}
	c.opening++
	c.mu.Unlock()
	if victim != "" {
		_ = live[victim].Close()
	}
	return true
}

// opened ends a reservation: id is the new session's (empty when the
// request opened none).
func (c *sessionCap) opened(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opening--
	if id != "" {
		c.last[id] = time.Now()
	}
}

// normalizeAddr defaults the host to 127.0.0.1 ("8080" and ":8080" both
// mean 127.0.0.1:8080).
func normalizeAddr(addr string) (string, error) {
	if addr == "" {
		return "", errors.New("http address is empty; give host:port, e.g. 127.0.0.1:8765")
	}
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("http address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

func isLoopbackHost(h string) bool {
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func isUnspecified(h string) bool {
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsUnspecified()
}
