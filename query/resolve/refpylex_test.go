package resolve

import (
	"strings"
	"testing"
)

func TestPyCallAround(t *testing.T) {
	tests := []struct {
		text   string // the use is at the first "config" of the last line
		callee string
	}{
		{"Layout(config=1)", "Layout"},
		{"x = kit.Layout(a, config=1)", "kit.Layout"},
		{"Layout(\n    name=\"a(\",\n    config=1,", "Layout"},
		{"Layout(\n    parts=[Part(x)],\n    config=1,", "Layout"},
		{"Layout(name=f(\n    config=1,", "f"},
		{"items = [\n    config,", ""},
		{"d = {\"k\": (1, 2),\n    config: 1,", ""},
		{"config = 1", ""},
	}
	for _, tt := range tests {
		lines := strings.Split(tt.text, "\n")
		at := strings.Index(lines[len(lines)-1], "config")
		if got := pyCallAround(lines, len(lines), at); got != tt.callee {
			t.Errorf("pyCallAround(%q) = %q, want %q", tt.text, got, tt.callee)
		}
	}
}
