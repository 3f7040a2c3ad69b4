package embed

import (
	"context"
	"math"
)

// Provider embeds texts.
//
// Implementations are safe for concurrent use.
type Provider interface {
	// ID names the model and every setting that changes its vectors, e.g.
	// "model2vec:minishlab/potion-code-16M@86848193" or
	// "openai:api.openai.com/v1/text-embedding-3-small:1536". Vectors from
	// providers with different IDs must not be compared or share a cache.
	ID() string

	// Dim is the vector length, or 0 while it is not yet known (an OpenAI
	// provider without a configured dimension learns it from its first
	// response).
	Dim() int

	// Embed returns one vector per text, in order, each of length Dim() and
	// of unit L2 norm (the one exception: a Model2Vec model whose
	// config.json turns normalize off returns its raw mean vectors, as the
	// reference implementation does). A text that yields nothing to embed
	// (empty, or only unknown tokens) gets an all-zero vector, which is
	// similar to nothing. The result for a text does not depend on the rest
	// of the batch.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// normalizeInto writes v / (‖v‖ + 1e-32) into dst as float32, the rule
// Model2Vec uses (the epsilon keeps an all-zero vector zero instead of NaN).
func normalizeInto(dst []float32, v []float64) {
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	inv := 1 / (math.Sqrt(sum) + 1e-32)
	for i, x := range v {
		dst[i] = float32(x * inv)
	}
}

// normalize32 scales v to unit L2 norm in place, computing in float64.
// An all-zero vector stays zero.
func normalize32(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
