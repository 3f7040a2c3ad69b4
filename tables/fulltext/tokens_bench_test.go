package fulltext

import (
	"strings"
	"testing"
)

// benchTexts are code, accented prose and CJK prose, each about 20 KB.
var benchTexts = map[string]string{
	"code":  strings.Repeat("func (db *DB) SearchChunks(ctx context.Context, q fulltext.Query) ([]ChunkRow, error) {\n", 220),
	"latin": strings.Repeat("Le café naïve à l'école: résumé détaillé, straße, ǖ ấ. ", 380),
	"cjk":   strings.Repeat("// 日本語のコメント：データを読み込んで検索する。中文注释：读取数据并搜索。\n", 190),
}

func BenchmarkTokenize(b *testing.B) {
	for name, text := range benchTexts {
		b.Run(name, func(b *testing.B) {
			var tk Tokenizer
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tk.Scan(text)
			}
		})
	}
}
