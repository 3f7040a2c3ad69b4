package extract

import (
	"path"
	"strings"
	"sync"

	"github.com/viberag/viberag/extract/scan"
)

// Language is a language viberag knows by file name.
type Language struct {
	Name   string
	reader reader // nil: indexed as text chunks
}

// LanguageOf names the language of a file from its name. Files of unknown
// languages are "text": still indexed, as line-window chunks.
func LanguageOf(p string) Language {
	base := path.Base(p)
	ext := strings.ToLower(path.Ext(base))
	if name, ok := languageByBase[base]; ok {
		return Language{Name: name, reader: readerFor(name)}
	}
	if name, ok := languageByExt[ext]; ok {
		return Language{Name: name, reader: readerFor(name)}
	}
	return Language{Name: "text"}
}

// languageByExt maps lower-case extensions to language names.
var languageByExt = map[string]string{
	".go":       "go",
	".py":       "python",
	".pyi":      "python",
	".js":       "javascript",
	".mjs":      "javascript",
	".cjs":      "javascript",
	".jsx":      "javascript",
	".ts":       "typescript",
	".mts":      "typescript",
	".cts":      "typescript",
	".tsx":      "tsx",
	".rs":       "rust",
	".java":     "java",
	".c":        "c",
	".h":        "c",
	".cc":       "cpp",
	".cpp":      "cpp",
	".cxx":      "cpp",
	".c++":      "cpp",
	".hh":       "cpp",
	".hpp":      "cpp",
	".hxx":      "cpp",
	".h++":      "cpp",
	".ipp":      "cpp",
	".cs":       "csharp",
	".rb":       "ruby",
	".rake":     "ruby",
	".php":      "php",
	".kt":       "kotlin",
	".kts":      "kotlin",
	".swift":    "swift",
	".scala":    "scala",
	".sc":       "scala",
	".lua":      "lua",
	".sh":       "bash",
	".bash":     "bash",
	".bats":     "bash",
	".zsh":      "bash",
	".ex":       "elixir",
	".exs":      "elixir",
	".hs":       "haskell",
	".lhs":      "haskell",
	".zig":      "zig",
	".md":       "markdown",
	".markdown": "markdown",
	".mdx":      "markdown",
}

// languageByBase maps whole file names that carry no telling extension.
var languageByBase = map[string]string{
	"Rakefile": "ruby",
	"Gemfile":  "ruby",
	"BUILD":    "text",
}

// readerFor returns the reader of a language, nil when it has none yet.
func readerFor(name string) reader {
	if name == "go" {
		return goReader{}
	}
	if scan.Reads(name) {
		return scanReader{lang: name}
	}
	if spec := treeSitterSpec(name); spec != nil {
		return tsReader{spec: spec}
	}
	return nil
}

// treeSitterSpec returns the spec of a tree-sitter language, nil if it has
// none.
func treeSitterSpec(name string) *tsSpec { return treeSitterSpecs[name] }

// treeSitterSpecs are the specs of the tree-sitter languages by name,
// built once: a spec's role table is built on its first use.
var treeSitterSpecs = specsByName(
	bashSpec(), elixirSpec(), javaSpec(), javascriptSpec(), typescriptSpec(), tsxSpec(), kotlinSpec(),
	luaSpec(), phpSpec(), pythonSpec(), rubySpec(), rustSpec(), scalaSpec(), zigSpec(),
)

func specsByName(specs ...*tsSpec) map[string]*tsSpec {
	m := make(map[string]*tsSpec, len(specs))
	for _, s := range specs {
		s.roles = sync.OnceValue(func() tsRoles { return newRoles(s, s.language()) })
		m[s.name] = s
	}
	return m
}
