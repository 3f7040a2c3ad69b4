package extract

import "sync"

// tsSpecs holds the tree-sitter languages. Each <language>.go file adds its
// spec from init, so languages stay independent files; the map is never
// written after package initialisation.
var tsSpecs = map[string]*tsSpec{}

func registerTreeSitter(s *tsSpec) {
	if _, dup := tsSpecs[s.name]; dup {
		panic("extract: tree-sitter language registered twice: " + s.name)
	}
	s.roles = sync.OnceValue(func() tsRoles { return newRoles(s, s.language()) })
	tsSpecs[s.name] = s
}

// treeSitterSpec returns the spec of a language, nil if it has none.
func treeSitterSpec(name string) *tsSpec { return tsSpecs[name] }
