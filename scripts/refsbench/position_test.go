package main

import (
	"strings"
	"testing"
)

func TestNamePosition(t *testing.T) {
	tests := []struct {
		name, src, ident string
		want             position
	}{
		{"go method after its doc comment and receiver",
			"// Name returns the name.\nfunc (c *Command) Name() string {\n\treturn c.name\n}\n", "Name",
			position{Line: 2, Byte: 18, Rune: 18, UTF16: 18}},
		{"go method whose receiver type has the name",
			"func (s String) String() string { return string(s) }\n", "String",
			position{Line: 1, Byte: 16, Rune: 16, UTF16: 16}},
		{"go struct field",
			"\tUse string `json:\"use\"`\n", "Use",
			position{Line: 1, Byte: 1, Rune: 1, UTF16: 1}},
		{"python method under a decorator",
			"    @property\n    def name(self) -> str:\n        return self._name\n", "name",
			position{Line: 2, Byte: 8, Rune: 8, UTF16: 8}},
		{"python instance attribute",
			"        self.formats = formats\n", "formats",
			position{Line: 1, Byte: 13, Rune: 13, UTF16: 13}},
		{"typescript exported async generator",
			"/** Yields. */\nexport async function* takeWithGrace<T>(it: T) {}\n", "takeWithGrace",
			position{Line: 2, Byte: 23, Rune: 23, UTF16: 23}},
		{"typescript $-name is a whole word, not ZodCUID2",
			"export class $ZodCUID2 extends ZodCUID2 {}\n", "$ZodCUID2",
			position{Line: 1, Byte: 13, Rune: 13, UTF16: 13}},
		{"typescript property in a type",
			"  readonly createContext: Fn;\n", "createContext",
			position{Line: 1, Byte: 11, Rune: 11, UTF16: 11}},
		{"no declaration word before it: the first plain occurrence, comments skipped",
			"// x is here\nfoo = x + 1\n", "x",
			position{Line: 2, Byte: 6, Rune: 6, UTF16: 6, Guess: true}},
		{"columns count bytes, code points and UTF-16 units apart",
			"s = \"é𝄞\"; f = 1\n", "f",
			position{Line: 1, Byte: 14, Rune: 10, UTF16: 11, Guess: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := namePosition([]byte(tt.src), 0, len(tt.src), tt.ident)
			if !ok || got != tt.want {
				t.Errorf("namePosition(%q) = %+v, %v; want %+v", tt.ident, got, ok, tt.want)
			}
		})
	}
}

func TestNamePositionWithinSpan(t *testing.T) {
	src := "func Open() {}\n\nfunc (db *DB) Open() {}\n"
	start := strings.Index(src, "func (db")
	got, ok := namePosition([]byte(src), start, len(src), "Open")
	if want := (position{Line: 3, Byte: 14, Rune: 14, UTF16: 14}); !ok || got != want {
		t.Errorf("got %+v, %v; want %+v: the span starts at the method", got, ok, want)
	}
	for _, bad := range []struct {
		start, end int
		name       string
	}{{0, len(src), "Close"}, {0, len(src), "pen"}, {5, 5, "Open"}, {0, len(src) + 1, "Open"}} {
		if got, ok := namePosition([]byte(src), bad.start, bad.end, bad.name); ok {
			t.Errorf("namePosition(%d, %d, %q) = %+v; want not found", bad.start, bad.end, bad.name, got)
		}
	}
}

func TestWrittenAsWord(t *testing.T) {
	for _, tt := range []struct {
		line, name string
		want       bool
	}{
		{"c.usageTemplate = nil", "UsageTemplate", false},
		{"return c.UsageTemplate()", "UsageTemplate", true},
		{"m := map[string]string{}", "String", false},
		{"export const $ZodCUID2 = 1", "ZodCUID2", false},
		{"ZodCUID2x(ZodCUID2)", "ZodCUID2", true},
		{"", "x", false},
	} {
		if got := writtenAsWord(tt.line, tt.name); got != tt.want {
			t.Errorf("writtenAsWord(%q, %q) = %v; want %v", tt.line, tt.name, got, tt.want)
		}
	}
}
