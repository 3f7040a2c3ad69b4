package query

import (
	"slices"
	"testing"
)

// TestModulePath: only a qualified name whose parts are all capitalised
// reads as a module path.
func TestModulePath(t *testing.T) {
	for tok, want := range map[string][]string{
		"Data.Set.Internal":        {"data", "set", "internal"},
		"X.P.OrgMode":              {"x", "p", "orgmode"},
		"Faraday::Options":         {"faraday", "options"},
		"Tesla.Middleware.BaseUrl": {"tesla", "middleware", "baseurl"},
		"Grape::Endpoint::Options": {"grape", "endpoint", "options"},
		"Sidekiq.logger":           nil, // a member
		"res.send":                 nil,
		"Mocks":                    nil,
		"X.P":                      nil, // no module's name, initials only
		"cmd/hcldec":               nil,
		"Foo.$bar":                 nil,
	} {
		if got := modulePath(tok); !slices.Equal(got, want) {
			t.Errorf("modulePath(%q) = %q, want %q", tok, got, want)
		}
	}
}

// TestNamesModule: a module path names the file at that path, its
// initials standing for names, in the languages that name files by
// their modules; a C++ namespace does not name a path.
func TestNamesModule(t *testing.T) {
	type file struct{ path, language string }
	tests := []struct {
		text, scope string
		want        map[file]int
	}{
		{"Fix error message In module `Data.Set.Internal`", "", map[file]int{
			{"containers/src/Data/Set/Internal.hs", "haskell"}: 2,
			{"containers/src/Data/Map/Internal.hs", "haskell"}: 0,
			{"containers/src/Data/Set.hs", "haskell"}:          1, // by its qualifier, as before
		}},
		{"Use X.U.Parser", "X.P.OrgMode", map[file]int{
			{"XMonad/Prompt/OrgMode.hs", "haskell"}: 2,
			{"XMonad/Util/Parser.hs", "haskell"}:    2,
			{"XMonad/Util/Paste.hs", "haskell"}:     0,
			{"XMonad/OrgMode.hs", "haskell"}:        0,
		}},
		{"allow initializing of Faraday::Options with falsey values", "", map[file]int{
			{"lib/faraday/options.rb", "ruby"}:         2,
			{"lib/faraday/request/options.rb", "ruby"}: 0,
			{"lib/faraday.rb", "ruby"}:                 1,
		}},
		{"Fix documentation references to plug Tesla.Middleware.BaseUrl", "", map[file]int{
			{"lib/tesla/middleware/base_url.ex", "elixir"}: 2,
		}},
		{"Add missing RE2::Arg constructor", "", map[file]int{
			{"re2/arg.h", "cpp"}: 0,
		}},
	}
	for _, tc := range tests {
		nf := readNamedFiles(tc.text, tc.scope)
		for f, want := range tc.want {
			if got := nf.names(&fileInfo{path: f.path, language: f.language}); got != want {
				t.Errorf("%q (scope %q) names %s: %d, want %d", tc.text, tc.scope, f.path, got, want)
			}
		}
	}
}

// TestModulePathLift: a change request whose scope is a Haskell module's
// path, its qualifiers shortened to their initials (X.P.OrgMode), ranks
// the file of that module above a sibling that shares more of its words;
// without the named path prior the sibling leads.
func TestModulePathLift(t *testing.T) {
	db := indexedFiles(t, map[string]string{
		"XMonad/Prompt/OrgMode.hs": "module XMonad.Prompt.OrgMode (orgPrompt) where\n\n-- | A prompt that appends a note to an org file, at the dates it reads.\n" +
			"orgPrompt :: XPConfig -> X ()\norgPrompt conf = mkXPrompt Org conf (const (pure [])) appendNote\n",
		"XMonad/Prompt/DateTime.hs": "module XMonad.Prompt.DateTime (datePrompt) where\n\n-- | A prompt that reads dates, with or without a time of day.\n" +
			"datePrompt :: XPConfig -> X ()\ndatePrompt conf = mkXPrompt Date conf (const (pure [])) readDate -- dates without a time\n",
		"XMonad/Util/Run.hs": "module XMonad.Util.Run (spawnPipe) where\n\nspawnPipe :: String -> IO Handle\nspawnPipe = undefined\n",
	})
	off := DefaultTuning()
	off.NamedPathBoost = 0
	req := Request{Query: "X.P.OrgMode: Allow dates without a time", Limit: 10}
	liftedFirst(t, db, off, req, "XMonad/Prompt/OrgMode.hs", "the named path prior")
}
