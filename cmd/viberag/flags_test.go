package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// TestEveryNumberFlagHasARange: every number flag of every command has a
// range in flagRanges, and its default lies in it (0 is "not given").
func TestEveryNumberFlagHasARange(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.Name("viberag"), kong.Vars{"version": "test"})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if !isNumber(f.Target.Type()) {
				continue
			}
			checked++
			r, ok := flagRanges[f.Name]
			if !ok {
				t.Errorf("%s --%s: a number flag without a range in flagRanges", commandPath(n), f.Name)
				continue
			}
			if f.HasDefault {
				var def reflect.Value
				if f.Target.Type() == durationType {
					d, err := time.ParseDuration(f.Default)
					if err != nil {
						t.Fatalf("%s --%s: default %q: %v", commandPath(n), f.Name, f.Default, err)
					}
					def = reflect.ValueOf(d)
				} else {
					v, err := strconv.ParseInt(f.Default, 10, 64)
					if err != nil {
						t.Fatalf("%s --%s: default %q: %v", commandPath(n), f.Name, f.Default, err)
					}
					def = reflect.ValueOf(v)
				}
				if err := r.check(flagName(f), def); err != nil {
					t.Errorf("%s: the default is out of its own range: %v", commandPath(n), err)
				}
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(parser.Model.Node)
	if checked < 15 {
		t.Errorf("only %d number flags found: the walk misses commands", checked)
	}
}

// TestFlagPlaceholdersSayWhatToGive: no flag's --help shows its Go type
// as what to give (--max-file-size=INT-64, --data-dir=STRING) where a
// word says it (BYTES, DIR).
func TestFlagPlaceholdersSayWhatToGive(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.Name("viberag"), kong.Vars{"version": "test"})
	if err != nil {
		t.Fatal(err)
	}
	goType := regexp.MustCompile(`^(STRING|U?INT(-[0-9]+)?|FLOAT(-[0-9]+)?)(,\.\.\.)?$`)
	checked := 0
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if f.IsBool() || f.IsCounter() || f.Hidden {
				continue // no value to give, or not shown
			}
			checked++
			if ph := f.FormatPlaceHolder(); goType.MatchString(ph) {
				t.Errorf("%s --%s=%s: a type, not what to give", commandPath(n), f.Name, ph)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(parser.Model.Node)
	if checked < 40 {
		t.Errorf("only %d flags with a value found: the walk misses commands", checked)
	}
}

// TestNumberFlagsOutOfRange: a number flag given out of its range (zero,
// negative with or without '=', too large), or a flag given no value or
// one that is not a number or duration, is a usage error that names the
// flag, the value and what to give, with where to read more; nothing
// runs. Negative values are read as values, not as unknown short flags.
func TestNumberFlagsOutOfRange(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"index", "--workers", "0"}, "--workers 0 is out of range; give 1 to 256"},
		{[]string{"index", "--workers=-3"}, "--workers -3 is out of range; give 1 to 256"},
		{[]string{"index", "--max-file-size", "0"}, "--max-file-size 0 is out of range; give 1 to 10485760"},
		{[]string{"index", "--max-file-size", "-1"}, "--max-file-size -1 is out of range; give 1 to 10485760"},
		{[]string{"index", "--max-file-size", "20000000"}, "--max-file-size 20000000 is out of range; give 1 to 10485760"},
		{[]string{"index", "--parse-timeout", "0s"}, "--parse-timeout 0s is out of range; give 1ms to 10m"},
		{[]string{"index", "--wait", "-1s"}, "--wait -1s is out of range; give 1ms or more"},
		{[]string{"index", "--embed-budget", "0s"}, "--embed-budget 0s is out of range; give 1s to 24h"},
		{[]string{"index", "--embed-dimensions", "-2", "--embed", "openai"}, "--embed-dimensions -2 is out of range; give 1 to 65536"},
		{[]string{"mcp", "--debounce", "0s"}, "--debounce 0s is out of range; give 10ms to 1m"},
		{[]string{"mcp", "--workers", "0"}, "--workers 0 is out of range; give 1 to 256"},
		{[]string{"search", "x", "-k", "0"}, "-k 0 is out of range; give 1 to 200"},
		{[]string{"search", "x", "-k", "-1"}, "-k -1 is out of range; give 1 to 200"},
		{[]string{"search", "x", "--max-tokens", "3"}, "--max-tokens 3 is out of range; give 0 (no bound) or 150 to 200000"},
		{[]string{"search", "x", "--max-tokens", "-5"}, "--max-tokens -5 is out of range; give 0 (no bound) or 150 to 200000"},
		{[]string{"symbol", "x", "--max-code-chars", "-1"}, "--max-code-chars -1 is out of range; give 1 to 16384"},
		{[]string{"refs", "x", "--limit", "0"}, "--limit 0 is out of range; give 1 to 1000"},
		{[]string{"refs", "x", "--limit", "5000"}, "--limit 5000 is out of range; give 1 to 1000"},
		{[]string{"refs", "x", "--limit", "99999999999999999999"}, "--limit 99999999999999999999 is out of range; give 1 to 1000"},
		// Values the parser refuses, in words a user can act on.
		{[]string{"search", "x", "-k"}, "-k needs a value (a number)"},
		{[]string{"search", "x", "-k", "abc"}, `-k "abc" is not a whole number; give 1 to 200`},
		{[]string{"search", "x", "--max-tokens=1.5"}, `--max-tokens "1.5" is not a whole number; give 0 (no bound) or 150 to 200000`},
		{[]string{"index", "--max-file-size", "1MiB"}, `--max-file-size "1MiB" is not a whole number; give 1 to 10485760`},
		{[]string{"index", "--wait"}, "--wait needs a value (a duration, e.g. 30s)"},
		{[]string{"index", "--parse-timeout", "10"}, `--parse-timeout "10" is not a duration; give a number with its unit, e.g. 1500ms, 30s or 5m`},
		{[]string{"search", "x", "--intent"}, "--intent needs a value"},
		{[]string{"index", "--include"}, "--include needs a value"},
	}
	// Should a check let a command run, it runs on an empty tree, into a
	// directory of the test's, with nothing on standard input.
	t.Setenv("VIBERAG_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			want := "viberag: " + tc.want + "\nsee viberag " + tc.args[0] + " --help\n"
			if code != exitFailure || stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("exit %d\nstderr %q\nwant   %q\nstdout %q", code, stderr.String(), want, stdout.String())
			}
		})
	}
	// With --json the error is JSON too, a usage error.
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"search", "x", "-k", "0", "--json"}, &stdout, &stderr); code != exitFailure {
		t.Fatalf("--json: exit %d", code)
	}
	var je jsonError
	if err := json.Unmarshal(stdout.Bytes(), &je); err != nil || je.Kind != "usage" || je.Help != "viberag search --help" || !strings.Contains(je.Error, "-k 0") {
		t.Errorf("--json: %+v (%v) from %q", je, err, stdout.String())
	}
}

// TestInvalidUTF8Argument: an argument that is not UTF-8 is refused,
// shown with its bytes escaped, rather than searched for with its bad
// bytes replaced by U+FFFD.
func TestInvalidUTF8Argument(t *testing.T) {
	t.Setenv("VIBERAG_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	for _, args := range [][]string{{"search", "gr\xffeet"}, {"refs", "Gr\xffeet"}, {"symbol", "--max-code-chars=\xff1"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		if code != exitFailure || !strings.Contains(stderr.String(), `\xff`) || !strings.Contains(stderr.String(), "not valid UTF-8") ||
			!strings.Contains(stderr.String(), "see viberag "+args[0]+" --help") {
			t.Errorf("viberag %q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// TestShortDuration: bounds read as people write them.
func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{10 * time.Minute: "10m", time.Hour: "1h", 90 * time.Minute: "1h30m", time.Millisecond: "1ms", 1500 * time.Millisecond: "1.5s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
