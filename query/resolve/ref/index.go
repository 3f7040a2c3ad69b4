package ref

// File is what the resolver reads of an indexed file.
type File struct {
	ID       int64
	Path     string
	Language string
	Lines    int // its line count
}

// Symbol is one symbol of the index: a definition of the name judged, or
// one the rules read (a class, a function and its annotations).
type Symbol struct {
	ID         string
	FileID     int64
	Path       string
	Start, End int
	Kind       string // extract.Kind*
	Name       string
	Qualname   string
}

// Line is one line holding the name, as the refs table lists it.
type Line struct {
	Path      string
	FileID    int64
	Line      int
	Kinds     []string
	Symbol    string
	EnclName  string // the enclosing symbol's name and first line
	EnclStart int
	DefLine   bool // a symbol of the name starts on the line
}
