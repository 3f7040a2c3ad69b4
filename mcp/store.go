package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/fanout"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/postgres"
)

// StoreServer serves every repository of a shared store (tables/postgres)
// over streamable HTTP, to many agents at once. It keeps no state of its
// own beyond caches, so any number of replicas can serve one store.
//
// Every request needs a bearer token (`viberag store token create`),
// checked against the catalog on every request; the token's repositories
// are the only ones any tool reads: searches, symbol ids, references,
// surrounding code, file lines and cursors all resolve through them, so
// a repository the caller may not read answers as one that does not
// exist. Without tokens (AllowNoAuth) a server must listen on loopback.
type StoreServer struct {
	store  *postgres.Store
	fan    *fanout.Searcher
	log    *slog.Logger
	mcp    *sdk.Server
	noAuth bool
	live   *indexer.Live
}

// StoreServerOptions configure a StoreServer.
type StoreServerOptions struct {
	// AllowNoAuth serves without tokens, every repository to everyone: on
	// a loopback address only (ListenStore refuses otherwise).
	AllowNoAuth bool
	// Timeout bounds each repository's part of a call (default 10s).
	Timeout time.Duration
	Logger  *slog.Logger
	// Embedder embeds queries for the repositories pushed with vectors of
	// its model; without one, VectorsOff says why vectors are off.
	Embedder   embed.Provider
	VectorsOff string
}

// StoreToolNames lists the tools of a StoreServer.
var StoreToolNames = []string{"codebase_search", "get_symbol_details", "find_references", "get_surrounding_code", "read_file_lines", "list_repos"}

// NewStoreServer returns a server of the store st.
func NewStoreServer(st *postgres.Store, opts StoreServerOptions) *StoreServer {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &StoreServer{store: st, log: log, noAuth: opts.AllowNoAuth, live: &indexer.Live{HadIndex: true},
		fan: fanout.New(st, fanout.Options{Present: PresentAction, Timeout: opts.Timeout, Embedder: opts.Embedder, VectorsOff: opts.VectorsOff,
			KeepGoChecks: true})}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "viberag", Title: "viberag code index (shared store)", Version: indexer.Version()},
		&sdk.ServerOptions{Instructions: storeInstructions, Logger: log, Capabilities: &sdk.ServerCapabilities{}})
	s.addTools()
	return s
}

const storeInstructions = `viberag serves the code index of many repositories (symbols, chunks, references), pushed from CI.
Start with list_repos or codebase_search (scope.repo narrows it to repositories by name or glob); follow a hit with get_symbol_details, find_references or get_surrounding_code, and read lines with read_file_lines (path and repo).
Every hit carries its repo, and ids end in @repository. A result with partial: true lacks the repositories named in missing (their shard did not answer).`

// ErrNoAuthRemote is returned by ListenStore for a non-loopback address
// served without tokens.
var ErrNoAuthRemote = errors.New("--allow-no-auth serves every repository to anyone who can connect: it is allowed on a loopback address only")

// ListenStore opens the listener for a StoreServer, refusing to serve
// without tokens beyond loopback.
func ListenStore(addr string, allowNoAuth bool) (net.Listener, error) {
	a, err := normalizeAddr(addr)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(a)
	if allowNoAuth && !isLoopbackHost(host) {
		return nil, fmt.Errorf("listen %s: %w", a, ErrNoAuthRemote)
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", a, err)
	}
	return ln, nil
}

// HealthPath answers GET with the store's health: the catalog and each
// shard reached or not (200 when all are, else 503). It needs no token
// and names no repository.
const HealthPath = "/healthz"

// Handler serves HTTPPath (MCP, behind the guard and the bearer tokens)
// and HealthPath.
func (s *StoreServer) Handler(listenAddr string, opts HTTPOptions) http.Handler {
	opts.Token = ""
	var wrap func(http.Handler) http.Handler
	if !s.noAuth {
		wrap = auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	}
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, guarded(s.mcp, s.log, listenAddr, opts, wrap))
	mux.HandleFunc(HealthPath, s.health)
	return mux
}

// ServeHTTP serves Handler on ln until ctx ends.
func (s *StoreServer) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	return serveHTTP(ctx, ln, s.Handler(ln.Addr().String(), opts), s.log, opts)
}

// verify checks a bearer token against the catalog (every request: a
// deleted token stops working at once).
func (s *StoreServer) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	a, err := s.store.Catalog.Authorize(ctx, token)
	if errors.Is(err, postgres.ErrUnauthorized) {
		return nil, fmt.Errorf("%w: unknown token; create one with viberag store token create", auth.ErrInvalidToken)
	}
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256([]byte(token))
	return &auth.TokenInfo{UserID: hex.EncodeToString(h[:8]), Extra: map[string]any{"access": a}}, nil
}

// access returns what the caller of a tool may read.
func (s *StoreServer) access(req *sdk.CallToolRequest) (postgres.Access, error) {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		if a, ok := req.Extra.TokenInfo.Extra["access"].(postgres.Access); ok {
			return a, nil
		}
	}
	if s.noAuth {
		return postgres.All, nil
	}
	return postgres.Access{}, errors.New("unauthorized: no token")
}

func (s *StoreServer) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	h := s.store.Health(ctx)
	code := http.StatusOK
	if !h.OK {
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(h)
}

// RepoScope is the scope of a store's search tools: scope.Scope and the
// repositories to search (names or globs; default: all the caller may
// read).
type RepoScope struct {
	Repo []string
	scope.Scope
}

// UnmarshalJSON reads "repo" (a name or a list) beside scope.Scope's
// fields, which are decoded as strictly as ever.
func (r *RepoScope) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("scope: %w", err)
	}
	if raw, ok := m["repo"]; ok {
		delete(m, "repo")
		var one string
		if err := json.Unmarshal(raw, &one); err == nil {
			r.Repo = []string{one}
		} else if err := json.Unmarshal(raw, &r.Repo); err != nil {
			return errors.New("scope: repo: give a repository name or glob, or a list of them")
		}
	}
	rest, _ := json.Marshal(m)
	sc, err := scope.Decode(rest)
	if err != nil {
		return err
	}
	r.Scope = sc
	return nil
}

// MarshalJSON writes the scope's fields and repo side by side.
func (r RepoScope) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.Scope)
	if err != nil || len(r.Repo) == 0 {
		return b, err
	}
	rb, _ := json.Marshal(r.Repo)
	if bytes.Equal(b, []byte("{}")) {
		return []byte(`{"repo":` + string(rb) + `}`), nil
	}
	return []byte(`{"repo":` + string(rb) + `,` + string(b[1:])), nil
}

// StoreSearchIn is codebase_search's input on a store.
type StoreSearchIn struct {
	SearchIn
	Scope *RepoScope `json:"scope,omitempty"`
}

// StoreRefsIn is find_references' input on a store.
type StoreRefsIn struct {
	RefsIn
	Scope *RepoScope `json:"scope,omitempty"`
}

// StoreSymbolIn is get_symbol_details' input on a store.
type StoreSymbolIn struct {
	SymbolIn
	Repo []string `json:"repo,omitempty" jsonschema:"with symbol_name: the repositories to look in (names or globs; default all you may read)"`
}

// StoreOut is what a store adds to an answer: the repositories left out
// because their shard did not answer (partial is then set).
type StoreOut struct {
	Missing []fanout.Missing `json:"missing,omitempty" jsonschema:"repositories left out of this answer (their shard did not answer); partial is set"`
}

// StoreSearchOut is codebase_search's result on a store.
type StoreSearchOut struct {
	*SearchOut
	StoreOut
}

// StoreSymbolOut is get_symbol_details' result on a store.
type StoreSymbolOut struct {
	*SymbolOut
	Repo string `json:"repo"`
	StoreOut
}

// StoreRefsOut is find_references' result on a store.
type StoreRefsOut struct {
	*RefsOut
	StoreOut
}

// storeEngine is the Engine of one call: the fan-out over the caller's
// repositories, recording what is missing.
type storeEngine struct {
	fan   *fanout.Searcher
	repos []postgres.Repo

	mu      sync.Mutex
	missing []fanout.Missing
	repo    string // the repository a symbol answer came from
}

func (e *storeEngine) note(m []fanout.Missing) {
	e.mu.Lock()
	e.missing = append(e.missing, m...)
	e.mu.Unlock()
}

func (e *storeEngine) Search(ctx context.Context, req query.Request) (*query.Response, error) {
	start := time.Now()
	resp, missing, err := e.fan.Search(ctx, e.repos, req)
	e.note(missing)
	if resp != nil {
		// The whole search, every repository's part and the merge, as a
		// local planner reports its own.
		resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
		if len(missing) > 0 {
			resp.Notes = append([]string{partialNote(missing)}, resp.Notes...)
		}
	}
	return resp, err
}

// partialNote says which repositories an answer lacks.
func partialNote(missing []fanout.Missing) string {
	names := make([]string, len(missing))
	for i, m := range missing {
		names[i] = m.String()
	}
	return "partial: no answer from " + strings.Join(names, ", ")
}

func (e *storeEngine) SymbolWith(ctx context.Context, idOrName string, opts query.SymbolOptions) (*query.SymbolDetails, error) {
	d, repo, missing, err := e.fan.Symbol(ctx, e.repos, idOrName, opts)
	e.note(missing)
	e.repo = repo
	return d, err
}

func (e *storeEngine) References(ctx context.Context, req query.RefsRequest) (*query.References, error) {
	refs, missing, err := e.fan.References(ctx, e.repos, req)
	e.note(missing)
	if refs != nil && len(missing) > 0 {
		refs.Notes = append([]string{partialNote(missing)}, refs.Notes...)
	}
	return refs, err
}

// SymbolExists is answered by SymbolWith and References themselves.
func (e *storeEngine) SymbolExists(context.Context, string) (bool, error) { return true, nil }

// finish marks an answer partial when repositories are missing (the
// answer's notes say which already).
func (e *storeEngine) finish(fr *Freshness) StoreOut {
	if len(e.missing) == 0 {
		return StoreOut{}
	}
	fr.Partial = true
	return StoreOut{Missing: e.missing}
}

// StoreAnswers makes the answers of codebase_search, get_symbol_details
// and find_references over the repositories of st matching patterns
// (names or globs; none: all), for `viberag search|symbol|refs --store`:
// the caller holds the store's URL, so it reads every repository.
// Queries are embedded with emb for the repositories pushed with vectors
// of its model, as NewStoreServer's are; without one, off says why
// searches are lexical.
func StoreAnswers(st *postgres.Store, patterns []string, emb embed.Provider, off string) func(ctx context.Context) (*Answers, error) {
	fan := fanout.New(st, fanout.Options{Present: PresentAction, Embedder: emb, VectorsOff: off})
	return func(ctx context.Context) (*Answers, error) {
		repos, err := fan.Repos(ctx, postgres.All, patterns)
		if err != nil {
			return nil, err
		}
		if len(repos) == 0 {
			return nil, fmt.Errorf("--repo %s: no repository of the store matches (store ls lists them)", strings.Join(patterns, ","))
		}
		return &Answers{Planner: &storeEngine{fan: fan, repos: repos}, Live: &indexer.Live{HadIndex: true}, QualifiedIDs: true}, nil
	}
}

// engine resolves the caller's repositories matching patterns.
func (s *StoreServer) engine(ctx context.Context, req *sdk.CallToolRequest, patterns []string) (*storeEngine, *Answers, error) {
	a, err := s.access(req)
	if err != nil {
		return nil, nil, err
	}
	repos, err := s.fan.Repos(ctx, a, patterns)
	if err != nil {
		return nil, nil, argErr("scope.repo", "%v", err)
	}
	e := &storeEngine{fan: s.fan, repos: repos}
	return e, &Answers{Planner: e, Live: s.live, QualifiedIDs: true}, nil
}

func (s *StoreServer) addTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	withRepo := func(sc *jsonschema.Schema) {
		if sc == nil {
			return
		}
		if sc.Properties == nil {
			sc.Properties = map[string]*jsonschema.Schema{}
		}
		sc.Properties["repo"] = &jsonschema.Schema{
			Types:       []string{"string", "array"},
			Items:       &jsonschema.Schema{Type: "string"},
			Description: "repositories to search: names or globs (github.com/acme/*, **/api); default every repository you may read (list_repos)",
		}
	}
	search, refs := searchSchema(), refsSchema()
	withRepo(search.Properties["scope"])
	withRepo(refs.Properties["scope"])

	sdk.AddTool(s.mcp, &sdk.Tool{Name: "codebase_search", Description: descSearch + ` Hits carry their repo; scope.repo narrows the search to repositories.`,
		Annotations: ro, InputSchema: search}, s.search)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "get_symbol_details", Description: descSymbol, Annotations: ro, InputSchema: symbolSchema[StoreSymbolIn]()}, s.symbol)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "find_references", Description: descRefs, Annotations: ro, InputSchema: refs}, s.references)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "get_surrounding_code", Description: descSurrounding + ` With path and line, give repo too.`, Annotations: ro}, s.surrounding)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "read_file_lines", Description: `Read lines of a file of a repository as it was pushed (repo and repository-relative path, as results give them). Returns at most 400 lines per call; when truncated, continue at next_start_line.`,
		Annotations: ro}, s.readLines)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "list_repos", Description: `List the repositories you may search: name, head commit, files, bytes and when each was last pushed.`, Annotations: ro}, s.listRepos)
}

func (s *StoreServer) search(ctx context.Context, req *sdk.CallToolRequest, in StoreSearchIn) (*sdk.CallToolResult, *StoreSearchOut, error) {
	var patterns []string
	if in.Scope != nil {
		patterns = in.Scope.Repo
		in.SearchIn.Scope = &in.Scope.Scope
	}
	e, a, err := s.engine(ctx, req, patterns)
	if err != nil {
		return nil, nil, err
	}
	out, err := a.Search(ctx, in.SearchIn)
	if err != nil {
		return nil, nil, storeErr(err)
	}
	res := &StoreSearchOut{SearchOut: out}
	res.StoreOut = e.finish(&out.Freshness)
	if len(e.repos) == 0 {
		out.Notes = append(out.Notes, "no repository matches: list_repos shows the ones you may search")
	}
	if t := []rune(out.Response.QueryUsed); out.Intent == query.ExactText && len([]rune(strings.Trim(in.Query, "\"'`"))) < 3 && len(t) == 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("text under three characters cannot use the trigram index: at most %d chunks per repository were scanned", postgres.ShortScanLimit))
	}
	return nil, res, nil
}

func (s *StoreServer) symbol(ctx context.Context, req *sdk.CallToolRequest, in StoreSymbolIn) (*sdk.CallToolResult, *StoreSymbolOut, error) {
	e, a, err := s.engine(ctx, req, in.Repo)
	if err != nil {
		return nil, nil, err
	}
	out, err := a.Symbol(ctx, in.SymbolIn)
	if err != nil {
		return nil, nil, storeErr(err)
	}
	res := &StoreSymbolOut{SymbolOut: out, Repo: e.repo}
	res.StoreOut = e.finish(&out.Freshness)
	return nil, res, nil
}

func (s *StoreServer) references(ctx context.Context, req *sdk.CallToolRequest, in StoreRefsIn) (*sdk.CallToolResult, *StoreRefsOut, error) {
	var patterns []string
	if in.Scope != nil {
		patterns = in.Scope.Repo
		in.RefsIn.Scope = &in.Scope.Scope
	}
	e, a, err := s.engine(ctx, req, patterns)
	if err != nil {
		return nil, nil, err
	}
	out, err := a.References(ctx, in.RefsIn)
	if err != nil {
		return nil, nil, storeErr(err)
	}
	res := &StoreRefsOut{RefsOut: out}
	res.StoreOut = e.finish(&out.Freshness)
	return nil, res, nil
}

// storeErr words the errors of ids and cursors that name nothing the
// caller may read, and of repositories whose shard does not answer.
func storeErr(err error) error {
	if errors.Is(err, fanout.ErrUnavailable) || postgres.IsUnavailable(err) {
		var te *toolError
		if errors.As(err, &te) {
			return err
		}
		return &toolError{msg: "unavailable: " + err.Error(), err: fanout.ErrUnavailable}
	}
	if errors.Is(err, query.ErrNoSymbol) || errors.Is(err, fanout.ErrNotFound) {
		var te *toolError
		if errors.As(err, &te) {
			return err
		}
		return &toolError{msg: err.Error() + " (ids and cursors are those of results; search again)", err: err}
	}
	return err
}

// repoArg resolves the repo argument of a path-addressed tool: the named
// repository when the caller may read it; with no name, the caller's only
// repository.
func (s *StoreServer) repoArg(ctx context.Context, req *sdk.CallToolRequest, name string) (postgres.Repo, error) {
	a, err := s.access(req)
	if err != nil {
		return postgres.Repo{}, err
	}
	if name == "" {
		repos, err := s.fan.Repos(ctx, a, nil)
		if err != nil {
			return postgres.Repo{}, err
		}
		if len(repos) != 1 {
			return postgres.Repo{}, argErr("repo", "missing; give the repository (a hit's repo; list_repos lists them)")
		}
		return repos[0], nil
	}
	r, err := s.fan.Repo(ctx, a, name)
	if errors.Is(err, postgres.ErrNotFound) {
		return postgres.Repo{}, argErr("repo", "%q: no such repository (list_repos lists the ones you may read)", trunc(name))
	}
	return r, err
}

// StoreSurroundingIn is get_surrounding_code's input on a store.
type StoreSurroundingIn struct {
	GetSurroundingCodeIn
	Repo string `json:"repo,omitempty" jsonschema:"with path and line: the repository (ids name theirs)"`
}

// StoreSurroundingOut is get_surrounding_code's result on a store.
type StoreSurroundingOut struct {
	*GetSurroundingCodeOut
	Repo string `json:"repo"`
}

func (s *StoreServer) surrounding(ctx context.Context, req *sdk.CallToolRequest, in StoreSurroundingIn) (*sdk.CallToolResult, *StoreSurroundingOut, error) {
	args, err := surroundingArgs(in.GetSurroundingCodeIn, true)
	if err != nil {
		return nil, nil, err
	}
	byLine := args.Path != ""
	repoName := in.Repo
	if args.ID != "" {
		repoName = args.Repo
	}
	repo, err := s.repoArg(ctx, req, repoName)
	if err != nil {
		if in.ID != "" {
			return nil, nil, argErr("id", "%s is not in the index; search again for a current id", trunc(in.ID))
		}
		return nil, nil, err
	}
	n, err := s.fan.Neighbourhood(ctx, repo, args.ID, args.Path, args.Line, args.Before, args.After)
	switch {
	case errors.Is(err, query.ErrNoAnchor) && byLine:
		return nil, nil, argErr("line", "%d is past the last indexed line of %s in %s, or the file is not there", args.Line, args.Path, repo.Name)
	case errors.Is(err, query.ErrNoAnchor):
		return nil, nil, argErr("id", "%s is not in the index (ids change when a symbol is renamed or its file is re-chunked); search again for a current id", in.ID)
	case err != nil:
		return nil, nil, storeErr(err)
	}
	out := &GetSurroundingCodeOut{Path: n.Path, Language: n.Language, Lines: n.Lines, Before: surrounding(n.Before), After: surrounding(n.After)}
	if n.Parent != nil {
		p := SurroundingSymbol(*n.Parent)
		out.Parent = &p
	}
	out.Anchor.SurroundingSymbol = SurroundingSymbol(n.Anchor)
	rd, err := s.fan.Reader(ctx, repo)
	if err != nil {
		return nil, nil, err
	}
	fid, ok, err := rd.FileID(ctx, n.Path)
	if err != nil {
		return nil, nil, storeErr(err)
	}
	if ok {
		end := min(n.Anchor.EndLine, n.Anchor.StartLine+maxAnchorLines-1)
		lines, err := rd.FileLines(ctx, fid, n.Anchor.StartLine, end)
		if err != nil {
			return nil, nil, storeErr(err)
		}
		out.Anchor.Code = strings.Join(cutLines(lines), "\n")
		out.Anchor.CodeTruncated = end < n.Anchor.EndLine
	}
	out.Freshness = s.live.Freshness()
	return nil, &StoreSurroundingOut{GetSurroundingCodeOut: out, Repo: repo.Name}, nil
}

// cutLines cuts lines longer than maxLineBytes, as read_file_lines does.
func cutLines(lines []string) []string {
	for i, l := range lines {
		if len(l) > maxLineBytes {
			lines[i] = trunc(l[:maxLineBytes]) + "…"
		}
	}
	return lines
}

// StoreReadIn is read_file_lines' input on a store.
type StoreReadIn struct {
	ReadFileLinesIn
	Repo string `json:"repo,omitempty" jsonschema:"the repository (a hit's repo); may be left out when you can read only one"`
}

// StoreReadOut is read_file_lines' result on a store: the lines as
// pushed.
type StoreReadOut struct {
	*ReadFileLinesOut
	Repo string `json:"repo"`
}

func (s *StoreServer) readLines(ctx context.Context, req *sdk.CallToolRequest, in StoreReadIn) (*sdk.CallToolResult, *StoreReadOut, error) {
	args, err := readArgs(in.ReadFileLinesIn)
	if err != nil {
		return nil, nil, err
	}
	rel := args.Path
	repo, err := s.repoArg(ctx, req, in.Repo)
	if err != nil {
		return nil, nil, err
	}
	rd, err := s.fan.Reader(ctx, repo)
	if err != nil {
		return nil, nil, err
	}
	fid, ok, err := rd.FileID(ctx, rel)
	if err != nil {
		return nil, nil, storeErr(err)
	}
	if !ok {
		return nil, nil, argErr("path", "%q is not a file of %s as pushed", rel, repo.Name)
	}
	total, err := rd.FileLineCount(ctx, fid)
	if err != nil {
		return nil, nil, storeErr(err)
	}
	out := &ReadFileLinesOut{Path: rel, StartLine: args.Start, TotalLines: total, Freshness: s.live.Freshness()}
	if total == 0 && args.Start == 1 {
		return nil, &StoreReadOut{ReadFileLinesOut: out, Repo: repo.Name}, nil
	}
	if args.Start > total {
		return nil, nil, argErr("start_line", "%d is past the end of %s, which has %d lines", args.Start, rel, total)
	}
	lines, err := rd.FileLines(ctx, fid, args.Start, min(args.End, total, args.Start+maxReadLines-1))
	if err != nil {
		return nil, nil, storeErr(err)
	}
	out.page(lines, args.End)
	return nil, &StoreReadOut{ReadFileLinesOut: out, Repo: repo.Name}, nil
}

// ListReposIn is list_repos' input (none).
type ListReposIn struct{}

// RepoInfo is one repository as list_repos shows it.
type RepoInfo struct {
	Name       string    `json:"name"`
	HeadCommit string    `json:"head_commit,omitempty"`
	Files      int64     `json:"files"`
	Bytes      int64     `json:"bytes"`
	PushedAt   time.Time `json:"pushed_at,omitzero"`
	// Vectors is what searches of the repository fuse with their lexical
	// channels; absent when it was pushed without vectors.
	Vectors *RepoVectorsInfo `json:"vectors,omitempty"`
}

// RepoVectorsInfo is a repository's vectors as the store keeps them.
type RepoVectorsInfo struct {
	Model string `json:"model"`
	// Weights are the vector weights its local index measured on its own
	// pseudo-queries, with the evidence (as get_status shows them),
	// pushed with the vectors; absent when it pushed none for this
	// model, and searches use the fixed defaults.
	Weights *query.Calibration `json:"weights,omitempty" jsonschema:"vector channel weights measured on the repository's own pseudo-queries (doc comments, README sections, commit subjects) and the evidence; fallback says why they are lexical-only"`
}

// repoVectorsInfo is v as list_repos shows it (nil: no vectors).
func repoVectorsInfo(v postgres.RepoVectors) *RepoVectorsInfo {
	if v.Model == "" {
		return nil
	}
	return &RepoVectorsInfo{Model: v.Model, Weights: query.CalibrationFor(v.Calibration, v.Model)}
}

// ListReposOut is list_repos' result.
type ListReposOut struct {
	Repos []RepoInfo `json:"repos"`
}

func (s *StoreServer) listRepos(ctx context.Context, req *sdk.CallToolRequest, _ ListReposIn) (*sdk.CallToolResult, *ListReposOut, error) {
	a, err := s.access(req)
	if err != nil {
		return nil, nil, err
	}
	repos, err := s.fan.Repos(ctx, a, nil)
	if err != nil {
		return nil, nil, err
	}
	// A shard that does not answer leaves its repositories listed,
	// without their vectors: searches of them fail and say why.
	vecs, err := s.store.Vectors(ctx, repos)
	if err != nil {
		s.log.Warn("list_repos: repository vectors", "error", err)
	}
	out := &ListReposOut{Repos: []RepoInfo{}}
	for _, r := range repos {
		out.Repos = append(out.Repos, RepoInfo{Name: r.Name, HeadCommit: r.HeadCommit, Files: r.Files, Bytes: r.Bytes, PushedAt: r.UpdatedAt,
			Vectors: repoVectorsInfo(vecs[r.ID])})
	}
	return nil, out, nil
}
