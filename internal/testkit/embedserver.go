package testkit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// EmbedServer is an OpenAI-compatible embeddings API (POST
// /v1/embeddings) on a loopback port, standing in for a provider whose
// faults a test sets. The vector of an input of n characters is (n, 1,
// 0, …) of Dim entries, and the data come back in reverse order, so a
// client must sort them by index.
type EmbedServer struct {
	*httptest.Server
	// Dim is the length of the vectors it answers with.
	Dim atomic.Int64
	// Zero makes every vector it answers with zero.
	Zero atomic.Bool

	mu       sync.Mutex
	requests []EmbedRequest
	fault    Fault

	inFlight, maxInFlight atomic.Int64
}

// EmbedRequest is a request as the server received it.
type EmbedRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions"`

	Auth     string `json:"-"` // the Authorization header
	User     string `json:"-"` // the user and password of basic authentication
	Password string `json:"-"`
	Query    string `json:"-"` // the URL's raw query
}

// A Fault may answer request number n (from 1) itself: it returns true
// when it did.
type Fault func(w http.ResponseWriter, r *http.Request, n int) bool

// NewEmbedServer starts an embeddings server answering vectors of dim
// entries; it stops when the test ends.
func NewEmbedServer(t testing.TB, dim int) *EmbedServer {
	t.Helper()
	s := &EmbedServer{}
	s.Dim.Store(int64(dim))
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// SetFault makes f see every request from now on, before the server
// answers it; nil answers every request again.
func (s *EmbedServer) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// Requests returns the requests received so far, in order.
func (s *EmbedServer) Requests() []EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Count returns the number of requests received so far.
func (s *EmbedServer) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// MaxInFlight returns the most requests the server has had in progress
// at once.
func (s *EmbedServer) MaxInFlight() int { return int(s.maxInFlight.Load()) }

// Stall is a fault that accepts a request and never answers it: the
// client gives up, or the request's context ends.
func Stall(w http.ResponseWriter, r *http.Request, n int) bool {
	<-r.Context().Done()
	return true
}

// Refuse is a fault that answers every request with status and an
// OpenAI-style error carrying message.
func Refuse(status int, message string) Fault {
	return func(w http.ResponseWriter, r *http.Request, n int) bool {
		body, _ := json.Marshal(map[string]any{"error": map[string]string{"message": message}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
		return true
	}
}

func (s *EmbedServer) serve(w http.ResponseWriter, r *http.Request) {
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if cur <= m || s.maxInFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"no route"}}`, http.StatusNotFound)
		return
	}
	var req EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Auth, req.Query = r.Header.Get("Authorization"), r.URL.RawQuery
	req.User, req.Password, _ = r.BasicAuth()
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n, fault := len(s.requests), s.fault
	s.mu.Unlock()
	if fault != nil && fault(w, r, n) {
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	dim, zero := s.Dim.Load(), s.Zero.Load()
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, dim)
		if !zero {
			v[0] = float32(utf8.RuneCountInString(req.Input[i]))
			if dim > 1 {
				v[1] = 1
			}
		}
		data = append(data, item{"embedding", v, i})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}
