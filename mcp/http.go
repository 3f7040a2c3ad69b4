package mcp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
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
	// accepted besides loopback ones.
	AllowedOrigins []string
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
// then shuts down, giving requests in flight a few seconds.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	hs := &http.Server{
		Handler:           s.HTTPHandler(ln.Addr().String(), opts),
		ReadHeaderTimeout: 10 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
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
// user's browser) and, when a token is set, the bearer token.
func (s *Server) HTTPHandler(listenAddr string, opts HTTPOptions) http.Handler {
	host, _, _ := net.SplitHostPort(listenAddr)
	loopback := isLoopbackHost(host)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		Logger: s.log,
		// Our guard checks Host itself, also for non-loopback listeners
		// and configured names, which the SDK's check would refuse.
		DisableLocalhostProtection: !loopback || len(opts.AllowedHosts) > 0,
		SessionTimeout:             30 * time.Minute,
	})
	g := &guard{next: h, token: opts.Token, loopback: loopback, origins: opts.AllowedOrigins}
	for _, hn := range opts.AllowedHosts {
		g.hosts = append(g.hosts, strings.ToLower(hn))
	}
	if !loopback && host != "" && !isUnspecified(host) {
		g.hosts = append(g.hosts, strings.ToLower(host))
	}
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, g)
	return mux
}

// guard enforces the Host, Origin and token rules before the MCP handler.
type guard struct {
	next     http.Handler
	token    string
	loopback bool     // listening on loopback only
	hosts    []string // accepted Host names besides loopback ones
	origins  []string // accepted Origins besides loopback ones
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostOK(r.Host) {
		http.Error(w, "forbidden: Host "+trunc(r.Host)+" is not accepted (DNS rebinding protection)", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originOK(o) {
		http.Error(w, "forbidden: Origin "+trunc(o)+" is not accepted", http.StatusForbidden)
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

// hostOK accepts loopback names always, configured names, and, behind a
// token on a non-loopback listener without configured names, any name:
// the token already proves the caller is no browser page.
func (g *guard) hostOK(hostport string) bool {
	h := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		h = hh
	}
	h = strings.ToLower(strings.Trim(h, "[]"))
	switch {
	case h == "":
		return false
	case isLoopbackHost(h), slices.Contains(g.hosts, h):
		return true
	}
	return !g.loopback && g.token != "" && len(g.hosts) == 0
}

func (g *guard) originOK(origin string) bool {
	if slices.Contains(g.origins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackHost(strings.ToLower(u.Hostname()))
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
