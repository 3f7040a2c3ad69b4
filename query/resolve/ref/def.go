package ref

import (
	"path"
	"strings"

	"github.com/viberag/viberag/extract"
)

// Def is a definition of the name, with the facts the resolver reads.
type Def struct {
	Sym    *Symbol
	Lang   string
	Dir    string
	Member bool   // a method, field or property
	Parent string // the type a member belongs to; a Go function's package
}

// NewDef returns the definition symbol u gives, its language read from
// files (by file id).
func NewDef(u *Symbol, files map[int64]*File) Def {
	d := Def{Sym: u, Dir: path.Dir(u.Path)}
	if f := files[u.FileID]; f != nil {
		d.Lang = f.Language
	}
	switch u.Kind {
	case extract.KindMethod, extract.KindField, extract.KindProperty:
		d.Member = true
	}
	if i := strings.LastIndex(u.Qualname, "."); i > 0 {
		d.Parent = u.Qualname[:i]
		if j := strings.LastIndex(d.Parent, "."); j >= 0 {
			d.Parent = d.Parent[j+1:]
		}
	}
	return d
}

// Scope returns the qualified name of the symbol a non-member definition
// is nested in, "" for a top-level one or a member.
func (d *Def) Scope() string {
	if d.Member {
		return ""
	}
	if i := strings.LastIndex(d.Sym.Qualname, "."); i > 0 {
		return d.Sym.Qualname[:i]
	}
	return ""
}
