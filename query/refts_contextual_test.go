package query

import "testing"

// tsContextualFiles: literals assigned to variables stated as an alias
// intersecting a type literal that declares a member, and as an
// interface declaring a member of the same name.
var tsContextualFiles = map[string]string{
	"src/parser.ts": `export type ParserLike<TIn, TOut> = {
  _input: TIn;
  _output: TOut;
};

export type Utility<TIn, TOut> = ParserLike<TIn, TOut> & {
  parse: (input: unknown) => TOut;
};

export interface Handler {
  parse(input: unknown): string;
}

export const blobParser: Utility<Blob, string> = {
  _input: null as any as Blob,
  _output: '',
  parse(input) {
    return String(input);
  },
};

export const textHandler: Handler = {
  parse(input) {
    return String(input);
  },
};
`,
}

// TestRefsTypeScriptStatedLiteralDecl: a key of a literal of stated type
// is the property the type declares: its declaration in the alias's type
// literal is listed, another type's is not.
func TestRefsTypeScriptStatedLiteralDecl(t *testing.T) {
	p := refsRepo(t, tsContextualFiles)
	at := func(marker string) string { return atLine(t, tsContextualFiles, "src/parser.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string
	}{
		{"blobParser.parse", map[string]string{
			at("parse: (input: unknown) => TOut;"): ConfNameOnly,
			at("parse(input: unknown): string;"):   "",
		}},
		{"textHandler.parse", map[string]string{
			at("parse: (input: unknown) => TOut;"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/parser.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
