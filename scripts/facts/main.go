// Command facts prints what package extract reads out of files, for the
// developers of its readers. It is a development tool, not shipped.
//
//	facts [-refs] FILE...   each file's facts: status, doc, imports and exports, symbols, chunks, refs per kind (-refs: every ref)
//	facts -list LIST        one line per path listed in the file LIST: status, problem, symbols (diff two builds' output over a corpus)
//	facts -corpus DIR       per language under DIR: files, MB, seconds, parse states, symbols, refs, chunks; the slowest files, the first problems
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/viberag/viberag/extract"
)

func main() {
	refs := flag.Bool("refs", false, "print every ref of each FILE")
	list := flag.String("list", "", "a file of paths, one a line: print each one's status, problem and symbol count")
	corpus := flag.String("corpus", "", "a directory: print per-language outcomes of every file under it")
	flag.Parse()
	var err error
	switch {
	case *list != "":
		err = printList(*list)
	case *corpus != "":
		err = printCorpus(*corpus)
	case flag.NArg() > 0:
		for _, p := range flag.Args() {
			if err = printFile(p, *refs); err != nil {
				break
			}
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "facts:", err)
		os.Exit(1)
	}
}

func read(p string) (*extract.File, error) {
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return extract.Extract(context.Background(), p, src, extract.Options{})
}

func printFile(p string, refs bool) error {
	f, err := read(p)
	if err != nil {
		return err
	}
	fmt.Printf("%s lang=%s status=%s problem=%q lines=%d doc=%q\nimports=%v\nexports=%v\n", f.Path, f.Language, f.ParseStatus, f.ParseProblem, f.Lines, f.Doc, f.Imports, f.Exports)
	for _, s := range f.Symbols {
		fmt.Printf("SYM %-8s %-30s %-40s p=%d %d-%d exp=%v dec=%v sig=%q doc=%.40q\n", s.Kind, s.Name, s.Qualname, s.Parent, s.StartLine, s.EndLine, s.Exported, s.Decorators, s.Signature, s.Doc)
	}
	for _, c := range f.Chunks {
		fmt.Printf("CHUNK %d-%d owner=%d %s ids=%d calls=%v\n", c.StartLine, c.EndLine, c.Symbol, c.Header, len(c.Identifiers), len(c.Calls))
	}
	n := map[string]int{}
	for _, r := range f.Refs {
		n[r.Kind]++
		if refs {
			fmt.Printf("REF %s %s %s %d\n", r.Kind, r.Name, r.Target, r.StartLine)
		}
	}
	fmt.Println("refs", n)
	return nil
}

func printList(list string) error {
	lf, err := os.Open(list)
	if err != nil {
		return err
	}
	defer lf.Close()
	sc := bufio.NewScanner(lf)
	for sc.Scan() {
		p := sc.Text()
		f, err := read(p)
		if err != nil {
			fmt.Printf("%s\terror\t%v\t0\n", p, err)
			continue
		}
		fmt.Printf("%s\t%s\t%s\t%d\n", p, f.ParseStatus, f.ParseProblem, len(f.Symbols))
	}
	return sc.Err()
}

func printCorpus(dir string) error {
	type stat struct {
		files, symbols, refs, chunks int
		status                       map[string]int
		bytes                        int64
		dur                          time.Duration
	}
	stats := map[string]*stat{}
	type slow struct {
		path, status string
		d            time.Duration
	}
	var slowest []slow
	var problems []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		lang := extract.LanguageOf(p).Name
		if lang == "text" {
			return nil
		}
		start := time.Now()
		f, err := read(p)
		el := time.Since(start)
		if err != nil {
			return err
		}
		s := stats[lang]
		if s == nil {
			s = &stat{status: map[string]int{}}
			stats[lang] = s
		}
		s.files++
		s.symbols += len(f.Symbols)
		s.refs += len(f.Refs)
		s.chunks += len(f.Chunks)
		s.status[f.ParseStatus]++
		s.bytes += f.Size
		s.dur += el
		slowest = append(slowest, slow{p, f.ParseStatus, el})
		if f.ParseProblem != "" {
			problems = append(problems, fmt.Sprintf("%s: %s: %s", p, f.ParseStatus, f.ParseProblem))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, l := range slices.Sorted(maps.Keys(stats)) {
		s := stats[l]
		fmt.Printf("%-10s files=%d MB=%.2f sec=%.2f MB/s=%.2f status=%v symbols=%d refs=%d chunks=%d\n", l, s.files,
			float64(s.bytes)/1e6, s.dur.Seconds(), float64(s.bytes)/1e6/s.dur.Seconds(), s.status, s.symbols, s.refs, s.chunks)
	}
	sort.Slice(slowest, func(i, j int) bool { return slowest[i].d > slowest[j].d })
	for i := 0; i < len(slowest) && i < 5; i++ {
		fmt.Printf("slow %v %s %s\n", slowest[i].d, slowest[i].status, slowest[i].path)
	}
	for i := 0; i < len(problems) && i < 15; i++ {
		fmt.Println("problem", problems[i])
	}
	return nil
}
