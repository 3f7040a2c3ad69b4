// Command randvec is the control of the fusion measurements: an
// OpenAI-compatible embedding server (POST /v1/embeddings) whose vectors
// carry no signal. A text's vector is a unit vector of -dim Gaussian
// coordinates drawn from a generator seeded by the SHA-256 of the text, so
// it is deterministic (the same text always gets the same vector, as a
// model's would) and independent of every other text's: no word, length
// or language of the text shows in it.
//
// It lives under scripts/ because it is a measuring instrument, not a
// provider anyone should search with. It listens on loopback only.
//
// usage:
//
//	go run ./scripts/randvec -addr 127.0.0.1:8790 &
//	viberag eval --embed openai --embed-url http://127.0.0.1:8790/v1 --embed-model random ...
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"log"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8790", "loopback address to listen on")
	dim := flag.Int("dim", 256, "vector dimensions")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("randvec: -addr %q: must be a loopback address", *addr)
	}
	http.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad request: `+err.Error()+`"}}`, http.StatusBadRequest)
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		out := struct {
			Object string         `json:"object"`
			Data   []item         `json:"data"`
			Model  string         `json:"model"`
			Usage  map[string]int `json:"usage"`
		}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": 0, "total_tokens": 0}}
		for i, text := range req.Input {
			out.Data = append(out.Data, item{Object: "embedding", Embedding: vector(text, *dim), Index: i})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	log.Printf("randvec: %d-dimensional random vectors on http://%s/v1", *dim, *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// vector is text's vector: dim Gaussian coordinates from a generator
// seeded by the text's SHA-256, scaled to unit length.
func vector(text string, dim int) []float32 {
	sum := sha256.Sum256([]byte(text))
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
	v := make([]float64, dim)
	var norm float64
	for i := range v {
		v[i] = rng.NormFloat64()
		norm += v[i] * v[i]
	}
	out := make([]float32, dim)
	for i, x := range v {
		out[i] = float32(x / math.Sqrt(norm))
	}
	return out
}
