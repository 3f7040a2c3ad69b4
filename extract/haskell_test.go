package extract

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHaskellLexRefs checks which names the lexical Haskell reader calls:
// the head of an application is a call, its arguments, lambda parameters
// and the name an equation defines are not.
func TestHaskellLexRefs(t *testing.T) {
	src := `module M (run) where

import qualified Data.Map as Map
import Data.List (sortOn, (\\))

run :: Map.Map Int String -> IO ()
run m = do
    forM_ (Map.toList m) $ \k v -> print k
    let go acc [] = acc
        go acc (x:xs) = go (acc + x) xs
    when (Map.null m) $
        putStrLn "empty"
  where helper _ Nothing = False
        helper n (Just y) = n > y

data T = T { size :: Int } deriving Show
`
	f, err := Extract(context.Background(), "M.hs", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var calls, types, imports []string
	for _, r := range f.Refs {
		switch r.Kind {
		case RefCall:
			calls = append(calls, r.Name+"@"+r.Target)
		case RefType:
			types = append(types, r.Name)
		case RefImport:
			imports = append(imports, r.Name+":"+r.Target)
		}
	}
	wantCalls := []string{"forM_@", "toList@Map.toList", "print@", "go@", "when@", "null@Map.null", "putStrLn@", "Just@"}
	if !slices.Equal(calls, wantCalls) {
		t.Errorf("calls = %v, want %v", calls, wantCalls)
	}
	wantTypes := []string{"Map", "Int", "String", "IO", "T", "Int", "Show"}
	if !slices.Equal(types, wantTypes) {
		t.Errorf("types = %v, want %v", types, wantTypes)
	}
	wantImports := []string{"Data.Map:", "Data.List:sortOn", `Data.List:\\`}
	if !slices.Equal(imports, wantImports) {
		t.Errorf("imports = %v, want %v", imports, wantImports)
	}
	var syms []string
	for _, s := range f.Symbols {
		syms = append(syms, s.Kind+" "+s.Qualname)
	}
	wantSyms := []string{"module M", "function run", "struct T", "field T.size"}
	if !slices.Equal(syms, wantSyms) {
		t.Errorf("symbols = %v, want %v", syms, wantSyms)
	}
}

// TestHaskellTruncated reads every line prefix of the Haskell fixtures, and
// cuts inside comments, strings and brackets: the lexical reader must
// read each without a panic (which would leave only line chunks).
func TestHaskellTruncated(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "haskell", "src", "Relay", "*.hs"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for cut := 0; cut <= len(src); cut++ {
			if cut < len(src) && src[cut] != '\n' && !strings.ContainsRune("\"'{-(`", rune(src[cut])) {
				continue
			}
			f, err := Extract(context.Background(), p, src[:cut], Options{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(f.ParseProblem, "panic") {
				t.Fatalf("%s cut at byte %d: %s", p, cut, f.ParseProblem)
			}
		}
	}
}
