package query

import (
	"fmt"
	"testing"
)

// TestStringWordsLift: a change request written in the words of an error
// message ranks the file whose string literal holds them above a sibling
// named by those words, whose names and comments hold them; without the
// string-words prior the sibling leads.
func TestStringWordsLift(t *testing.T) {
	files := map[string]string{
		"csv/field.go": "package csv\n\n" +
			"// MissingField is a field missing from a record.\n" +
			"type MissingField struct{ Field string }\n\n" +
			"// Error names the missing field.\n" +
			"func (e *MissingField) Error() string { return e.Field }\n",
		"csv/reader.go": "package csv\n\nimport \"fmt\"\n\n" +
			"// Reader reads records.\ntype Reader struct{ header []string }\n\n" +
			"// Read reads one record.\nfunc (r *Reader) Read() ([]string, error) { return nil, nil }\n\n" +
			"// index finds a column.\nfunc (r *Reader) index(name string) (int, error) {\n" +
			"\tfor i, n := range r.header {\n\t\tif n == name {\n\t\t\treturn i, nil\n\t\t}\n\t}\n" +
			"\treturn 0, fmt.Errorf(\"csv: error: field %q is missing from the header\", name)\n}\n",
	}
	// Other files share the request's common words, as a real tree's do.
	for i := range 8 {
		files[fmt.Sprintf("other/f%d.go", i)] = fmt.Sprintf("package other\n\n// f%d reads a record's field.\nfunc f%d() {}\n", i, i)
	}
	db := indexedFiles(t, files)
	// Without the proximity lift (proximity.go): the sibling's one block
	// writes the words together, which is what that lift rewards; this
	// fixture isolates the string-words prior.
	on := DefaultTuning()
	on.ProxBoost = 0
	off := on
	off.StringBoost = 0
	req := Request{Query: "Improve the error when a field is missing from the header", Limit: 10}
	liftedFirstFrom(t, db, on, off, req, "csv/reader.go", "the string-words prior")
}
