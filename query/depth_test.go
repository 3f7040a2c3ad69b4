package query

import (
	"fmt"
	"testing"
)

// TestDepthLift: of two files a change request's words match about as
// well, the one nearer the root of the tree leads; without the depth prior
// the deeper one, whose comment says one of the words once more, does.
func TestDepthLift(t *testing.T) {
	body := "\n\n// Hosts lists the virtual hosts a server answers for.\n" +
		"func Hosts(names []string) []string {\n\tvar hosts []string\n" +
		"\tfor _, n := range names {\n\t\thosts = append(hosts, n)\n\t}\n\treturn hosts\n}\n"
	files := map[string]string{
		"echo.go":               "package echo" + body,
		"internal/multi/all.go": "package mult" + body + "\n// virtual\n",
	}
	// Other files share the request's common words, as a real tree's do.
	for i := range 8 {
		files[fmt.Sprintf("other/f%d.go", i)] = fmt.Sprintf("package other\n\n// f%d runs a server.\nfunc f%d() {}\n", i, i)
	}
	db := indexedFiles(t, files)
	off := DefaultTuning()
	off.TaskDepthBoost = 0
	req := Request{Query: "Add support for several virtual hosts", Limit: 10}
	liftedFirst(t, db, off, req, "echo.go", "the depth prior")
}

// TestDepthLiftOverOneWord: the file at the root leads a deeper one
// that holds one more of a change request's words (`support`) than it:
// at a lift of 0.5 (1.5 at the root against 1.17 two directories down)
// the deeper file led.
func TestDepthLiftOverOneWord(t *testing.T) {
	body := "\n\n// Hosts lists the virtual hosts a server answers for.\n" +
		"func Hosts(names []string) []string {\n\tvar hosts []string\n" +
		"\tfor _, n := range names {\n\t\thosts = append(hosts, n)\n\t}\n\treturn hosts\n}\n"
	files := map[string]string{
		"echo.go":               "package echo" + body + "\n// virtual\n",
		"internal/multi/all.go": "package mult" + body + "\n// support\n",
	}
	for i := range 8 {
		files[fmt.Sprintf("other/f%d.go", i)] = fmt.Sprintf("package other\n\n// f%d runs a server.\nfunc f%d() {}\n", i, i)
	}
	db := indexedFiles(t, files)
	half := DefaultTuning()
	half.TaskDepthBoost = 0.5
	req := Request{Query: "Add support for several virtual hosts", Limit: 10}
	liftedFirst(t, db, half, req, "echo.go", "a depth lift above 0.5")
}
