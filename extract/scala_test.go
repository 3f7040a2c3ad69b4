package extract

import (
	"context"
	"slices"
	"testing"
)

// TestScalaImports: every import names its module and what it takes from
// it, operators included (`import cats.~>` gave an empty module name and
// took "cats"; cats-effect, broad benchmark).
func TestScalaImports(t *testing.T) {
	src := "package a\n\n" +
		"import cats.~>\n" +
		"import cats.syntax.all._\n" +
		"import a.b.`weird name`\n" +
		"import x.{~> => Arrow, Y}\n" +
		"import p.q.{Hidden => _, *}\n\n" +
		"object O\n"
	f, err := Extract(context.Background(), "A.scala", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.Refs {
		if r.Kind == RefImport {
			got = append(got, r.Name+" "+r.Target)
		}
	}
	want := []string{"cats ~>", "cats.syntax.all *", "a.b `weird name`", "x ~>", "x Y", "p.q *"}
	if !slices.Equal(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
	if wantMods := []string{"cats", "cats.syntax.all", "a.b", "x", "p.q"}; !slices.Equal(f.Imports, wantMods) {
		t.Errorf("modules %q, want %q", f.Imports, wantMods)
	}
}
