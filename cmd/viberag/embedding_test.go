package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/embed"
)

func TestEmbedFlagsConfig(t *testing.T) {
	stored := map[string]string{"embedding_config": `{"provider":"openai","base_url":"http://localhost:11434/v1","model":"nomic"}`}
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		flags   embedFlags
		env     string
		meta    map[string]string
		want    embed.Config
		wantErr string
	}{
		{"default", embedFlags{Embed: "auto"}, "", nil, embed.Config{}, ""},
		{"model dir from the environment is recorded", embedFlags{Embed: "auto"}, dir, nil, embed.Config{ModelDir: dir}, ""},
		{"flag wins over the environment", embedFlags{Embed: "model2vec", ModelDir: "/m"}, dir, nil, embed.Config{Provider: "model2vec", ModelDir: "/m"}, ""},
		{"auto keeps the index's provider", embedFlags{Embed: "auto"}, "", stored,
			embed.Config{Provider: "openai", BaseURL: "http://localhost:11434/v1", Model: "nomic"}, ""},
		{"openai implied by its flags", embedFlags{Embed: "auto", EmbedModel: "text-embedding-3-small"}, "", nil,
			embed.Config{Provider: "openai", Model: "text-embedding-3-small", APIKeyEnv: "OPENAI_API_KEY"}, ""},
		{"off", embedFlags{Embed: "off"}, "", stored, embed.Config{Provider: "off"}, ""},
		{"openai without a model", embedFlags{Embed: "openai"}, "", nil, embed.Config{}, "model: empty"},
		{"openai flags on model2vec", embedFlags{Embed: "model2vec", EmbedURL: "http://x/v1"}, "", nil, embed.Config{}, "--embed-url"},
		{"bad url", embedFlags{Embed: "openai", EmbedModel: "m", EmbedURL: "localhost:1234"}, "", nil, embed.Config{}, `base_url "localhost:1234"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(embed.ModelDirEnv, tc.env)
			got, err := tc.flags.config(tc.meta)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.ModelDir != "" && !filepath.IsAbs(tc.want.ModelDir) {
				t.Fatal("bad test")
			}
			if got != tc.want {
				t.Errorf("config = %+v, want %+v", got, tc.want)
			}
		})
	}
}
