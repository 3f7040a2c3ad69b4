package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// judged compares one symbol's references, the server's taken as the
// truth: both sides without the definition's own line, and only in files
// the server analyses (viberag's lines elsewhere are counted, not judged).
type judged struct {
	Server  int `json:"server"`  // the server's references
	Viberag int `json:"viberag"` // viberag's judged lines
	Hits    int `json:"hits"`    // lines on both sides
	// Precision is Hits/Viberag, absent when viberag lists none; Recall is
	// Hits/Server, absent when the server has none.
	Precision *float64 `json:"precision,omitempty"`
	Recall    *float64 `json:"recall,omitempty"`
	Outside   int      `json:"viberag_outside"`             // viberag's lines in files the server does not analyse
	Reexports int      `json:"viberag_reexports,omitempty"` // viberag's lines marked as re-exports, not judged
	False     []loc    `json:"-"`                           // viberag's lines the server does not give
	Missed    []loc    `json:"-"`                           // the server's lines viberag does not list
}

// judge compares the server's and viberag's lines for the definition on
// line def; judgedFiles are the files the server analyses.
func judge(server, vib []loc, def loc, judgedFiles map[string]bool) judged {
	truth := map[loc]bool{}
	var j judged
	for _, l := range server {
		if l != def && judgedFiles[l.Path] && !truth[l] {
			truth[l] = true
			j.Server++
		}
	}
	listed := map[loc]bool{}
	for _, l := range vib {
		switch {
		case l == def || listed[l]:
		case !judgedFiles[l.Path]:
			j.Outside++
		default:
			listed[l] = true
			j.Viberag++
			if truth[l] {
				j.Hits++
			} else {
				j.False = append(j.False, l)
			}
		}
	}
	for l := range truth {
		if !listed[l] {
			j.Missed = append(j.Missed, l)
		}
	}
	sortLocs(j.False)
	sortLocs(j.Missed)
	if j.Viberag > 0 {
		p := float64(j.Hits) / float64(j.Viberag)
		j.Precision = &p
	}
	if j.Server > 0 {
		r := float64(j.Hits) / float64(j.Server)
		j.Recall = &r
	}
	return j
}

// aggregate is one row of the table: a language and class of name.
type aggregate struct {
	Language string `json:"language"`
	Class    string `json:"class"`
	N        int    `json:"n"`
	// Macro averages over the symbols where each is defined (NPrecision,
	// NRecall of them); micro ones over all lines.
	MacroPrecision  float64 `json:"macro_precision"`
	MacroRecall     float64 `json:"macro_recall"`
	NPrecision      int     `json:"n_precision"`
	NRecall         int     `json:"n_recall"`
	MicroPrecision  float64 `json:"micro_precision"`
	MicroRecall     float64 `json:"micro_recall"`
	Hits            int     `json:"hits"`
	Server          int     `json:"server"`
	Viberag         int     `json:"viberag"`
	Truncated       int     `json:"truncated"` // answers cut at the limit
	False           int     `json:"false"`     // viberag's lines the server does not give
	FalseCase       int     `json:"false_case_only"`
	Missed          int     `json:"missed"`
	MissedUnwritten int     `json:"missed_unwritten"`
	Qualified       rate    `json:"qualified"` // `symbol QUALNAME` gave this definition
	// Confident: macro precision and recall over the lines marked
	// resolved or likely, of the ConfidentN symbols whose answer marks
	// confidence.
	ConfidentN         int     `json:"confident_n"`
	ConfidentPrecision float64 `json:"confident_precision"`
	ConfidentRecall    float64 `json:"confident_recall"`
	nConfP, nConfR     int
}

// rate is a count of successes out of a count of cases.
type rate struct {
	OK int `json:"ok"`
	Of int `json:"of"`
}

func (r rate) String() string {
	if r.Of == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.2f)", r.OK, r.Of, float64(r.OK)/float64(r.Of))
}

// summarise aggregates the symbols' results by language and class, in
// the order of langs, unique before shared.
func summarise(langs []string, syms []symbolResult) []aggregate {
	var out []aggregate
	for _, lang := range langs {
		for _, class := range []string{classUnique, classShared} {
			a := aggregate{Language: lang, Class: class}
			for _, s := range syms {
				if s.Language != lang || s.Class != class {
					continue
				}
				a.N++
				a.Hits += s.Hits
				a.Server += s.judged.Server
				a.Viberag += s.judged.Viberag
				if s.Precision != nil {
					a.MacroPrecision += *s.Precision
					a.NPrecision++
				}
				if s.Recall != nil {
					a.MacroRecall += *s.Recall
					a.NRecall++
				}
				if s.Truncated {
					a.Truncated++
				}
				if c := s.Confident; c != nil {
					a.ConfidentN++
					if c.Precision != nil {
						a.ConfidentPrecision += *c.Precision
						a.nConfP++
					}
					if c.Recall != nil {
						a.ConfidentRecall += *c.Recall
						a.nConfR++
					}
				}
				a.False += s.judged.Viberag - s.Hits
				a.Missed += s.judged.Server - s.Hits
				a.FalseCase += s.FalseCase
				a.MissedUnwritten += s.MissedUnwritten
				a.Qualified.Of++
				if s.QualifiedOK {
					a.Qualified.OK++
				}
			}
			a.ConfidentPrecision = ratio(a.ConfidentPrecision, a.nConfP)
			a.ConfidentRecall = ratio(a.ConfidentRecall, a.nConfR)
			a.MacroPrecision = ratio(a.MacroPrecision, a.NPrecision)
			a.MacroRecall = ratio(a.MacroRecall, a.NRecall)
			a.MicroPrecision = ratio(float64(a.Hits), a.Viberag)
			a.MicroRecall = ratio(float64(a.Hits), a.Server)
			out = append(out, a)
		}
	}
	return out
}

func ratio(x float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return x / float64(n)
}

// pickRates counts the shared names whose bare `symbol NAME` picked a
// most-used definition, per language; undecided picks are left out.
func pickRates(langs []string, picks []pickResult) map[string]rate {
	out := map[string]rate{}
	for _, lang := range langs {
		var r rate
		for _, p := range picks {
			if p.Language == lang && p.Correct != nil {
				r.Of++
				if *p.Correct {
					r.OK++
				}
			}
		}
		out[lang] = r
	}
	return out
}

var languageTitle = map[string]string{"go": "Go", "typescript": "TypeScript", "python": "Python"}

func title(lang string) string {
	if t, ok := languageTitle[lang]; ok {
		return t
	}
	return lang
}

// writeTable writes the markdown tables: references per language and
// class, then the symbol lookups.
func writeTable(w io.Writer, langs []string, rows []aggregate, picks map[string]rate) {
	fmt.Fprintln(w, "| language | names | n | precision | recall | micro precision / recall | truncated |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, a := range rows {
		names := "unique in the repo"
		if a.Class == classShared {
			names = "shared by several definitions"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.2f | %.2f | %.2f / %.2f | %d |\n", title(a.Language), names, a.N,
			a.MacroPrecision, a.MacroRecall, a.MicroPrecision, a.MicroRecall, a.Truncated)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| language | qualified `symbol` | bare shared-name top pick |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, lang := range langs {
		var q rate
		for _, a := range rows {
			if a.Language == lang {
				q.OK += a.Qualified.OK
				q.Of += a.Qualified.Of
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", title(lang), q, picks[lang])
	}
	if rows := confidentRows(rows); len(rows) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| language | names | n | precision, resolved and likely lines only | recall, resolved and likely lines only |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, a := range rows {
			fmt.Fprintf(w, "| %s | %s | %d | %.2f | %.2f |\n", title(a.Language), a.Class, a.ConfidentN, a.ConfidentPrecision, a.ConfidentRecall)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| language | names | false lines | name only in another case | missed lines | name not written |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, a := range rows {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %d | %s |\n", title(a.Language), a.Class, a.False, share(a.FalseCase, a.False),
			a.Missed, share(a.MissedUnwritten, a.Missed))
	}
}

// confidentRows are the rows with symbols whose answers mark confidence.
func confidentRows(rows []aggregate) []aggregate {
	var out []aggregate
	for _, a := range rows {
		if a.ConfidentN > 0 {
			out = append(out, a)
		}
	}
	return out
}

func share(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%d (%.0f %%)", n, 100*float64(n)/float64(of))
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// excerpt is a line of a file for the report, trimmed.
func excerpt(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	s := strings.TrimSpace(lines[n-1])
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
