package embed

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestChoiceResolve(t *testing.T) {
	stored := Config{Provider: ProviderOpenAI, BaseURL: "http://localhost:11434/v1", Model: "nomic"}
	dir := t.TempDir()
	for _, tc := range []struct {
		name       string
		choice     Choice
		env        string
		remembered bool
		want       Config
		wantErr    string
	}{
		{"default", Choice{Provider: Auto}, "", false, Config{}, ""},
		{"model dir from the environment is recorded", Choice{Provider: Auto}, dir, false, Config{ModelDir: dir}, ""},
		{"flag wins over the environment", Choice{Provider: ProviderModel2Vec, ModelDir: "/m"}, dir, false, Config{Provider: ProviderModel2Vec, ModelDir: "/m"}, ""},
		{"auto keeps the index's provider", Choice{Provider: Auto}, "", true, stored, ""},
		{"auto keeps off", Choice{Provider: Auto}, "", true, Config{Provider: ProviderOff}, ""},
		{"openai implied by its flags", Choice{Provider: Auto, Model: "text-embedding-3-small"}, "", false,
			Config{Provider: ProviderOpenAI, Model: "text-embedding-3-small", APIKeyEnv: "OPENAI_API_KEY"}, ""},
		{"auto keeps the remembered url for a new model", Choice{Provider: Auto, APIKeyEnv: "K", Dimensions: 64}, "", true,
			Config{Provider: ProviderOpenAI, BaseURL: "http://localhost:11434/v1", Model: "nomic", APIKeyEnv: "K", Dimensions: 64}, ""},
		{"off", Choice{Provider: ProviderOff}, "", true, Config{Provider: ProviderOff}, ""},
		{"openai without a model", Choice{Provider: ProviderOpenAI}, "", false, Config{}, "model: empty"},
		{"openai flags on model2vec", Choice{Provider: ProviderModel2Vec, BaseURL: "http://x/v1"}, "", false, Config{}, "--embed-url"},
		{"bad url", Choice{Provider: ProviderOpenAI, Model: "m", BaseURL: "localhost:1234"}, "", false, Config{}, `base_url "localhost:1234"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(ModelDirEnv, tc.env)
			st := Config{}
			if tc.remembered {
				st = stored
				if tc.name == "auto keeps off" {
					st = Config{Provider: ProviderOff}
				}
			}
			got, err := tc.choice.Resolve(st, tc.remembered)
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

func TestChoiceExplicit(t *testing.T) {
	for _, tc := range []struct {
		choice Choice
		cfg    Config
		want   bool
	}{
		{Choice{Provider: Auto}, Config{}, false},
		{Choice{Provider: Auto}, Config{Provider: ProviderOpenAI, Model: "m"}, true}, // remembered openai
		{Choice{Provider: ProviderModel2Vec}, Config{Provider: ProviderModel2Vec}, true},
		{Choice{Provider: ProviderOff}, Config{Provider: ProviderOff}, false},
	} {
		if got := tc.choice.Explicit(tc.cfg); got != tc.want {
			t.Errorf("%+v.Explicit(%+v) = %v, want %v", tc.choice, tc.cfg, got, tc.want)
		}
	}
}
