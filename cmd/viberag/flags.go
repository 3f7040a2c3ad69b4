package main

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/kong"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query"
)

// numRange is the values a number flag accepts: min to max, and 0 too
// when zero says what 0 means. A duration flag's bounds are durations.
type numRange struct {
	min, max int64  // max 0: no upper bound
	zero     string // what 0 means, when it is accepted
}

// dur is a duration bound.
func dur(d time.Duration) int64 { return int64(d) }

// flagRanges holds the range of every number flag of every command, by
// flag name (the same name means the same thing in every command). A flag
// left out when the command runs keeps its default, which may be 0 ("the
// number of CPUs"); one given must be in range. TestEveryNumberFlagHasARange
// keeps the table complete.
var flagRanges = map[string]numRange{
	// index, mcp, eval
	"workers":          {min: 1, max: 256},
	"max-file-size":    {min: 1, max: fileset.MaxMaxFileSize},
	"parse-timeout":    {min: dur(time.Millisecond), max: dur(10 * time.Minute)},
	"wait":             {min: dur(time.Millisecond)},
	"embed-timeout":    {min: dur(100 * time.Millisecond), max: dur(10 * time.Minute)},
	"embed-budget":     {min: dur(time.Second), max: dur(24 * time.Hour)},
	"embed-dimensions": {min: 1, max: 65536},
	"debounce":         {min: dur(10 * time.Millisecond), max: dur(time.Minute)},
	"poll-interval":    {min: dur(time.Second), max: dur(24 * time.Hour)},
	"runs":             {min: 1, max: 1000},
	// search, symbol, refs: the MCP tools' own bounds (mcp.Answers)
	"k":              {min: 1, max: query.MaxLimit},
	"max-tokens":     {min: query.MinTokens, max: 200_000, zero: "no bound"},
	"max-code-chars": {min: 1, max: query.MaxCodeBytes},
	"limit":          {min: 1, max: 1000},
	"offset":         {min: 0, max: 1 << 30, zero: "the first page"},
	// serve
	"timeout":    {min: dur(100 * time.Millisecond), max: dur(10 * time.Minute)},
	"max-conns":  {min: 1, max: 1024},
	"text-cache": {min: 0, max: 1 << 20}, // MB
}

// durationType is a time.Duration flag's type.
var durationType = reflect.TypeOf(time.Duration(0))

// isNumber reports whether a flag's value is a number (or a duration).
func isNumber(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// flagName is how an error names f: -k for a one-letter flag, else --name.
func flagName(f *kong.Flag) string {
	if f.Short != 0 && utf8.RuneCountInString(f.Name) == 1 {
		return "-" + string(f.Short)
	}
	return "--" + f.Name
}

// checkRanges reports the first number flag given on the command line
// (kctx.Path) whose value is out of its range, naming the flag, the value
// and the range.
func checkRanges(kctx *kong.Context) error {
	for _, p := range kctx.Path {
		f := p.Flag
		if f == nil || !isNumber(f.Target.Type()) {
			continue
		}
		r, ok := flagRanges[f.Name]
		if !ok {
			continue // TestEveryNumberFlagHasARange fails instead
		}
		if err := r.check(flagName(f), f.Target); err != nil {
			return err
		}
	}
	return nil
}

// check reports v, the value of the flag named name, when out of r.
func (r numRange) check(name string, v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	var n int64
	switch {
	case v.CanInt():
		n = v.Int()
	case v.CanUint():
		n = int64(min(v.Uint(), 1<<62))
	case v.CanFloat():
		n = int64(v.Float())
	default:
		return nil
	}
	if (n == 0 && r.zero != "") || (n >= r.min && (r.max == 0 || n <= r.max)) {
		return nil
	}
	dur := v.Type() == durationType
	show := func(n int64) string {
		if dur {
			return shortDuration(time.Duration(n))
		}
		return strconv.FormatInt(n, 10)
	}
	value := fmt.Sprint(v.Interface())
	if dur {
		value = show(n)
	}
	return usageErrorf("%s %s is out of range; %s", name, value, r.want(show))
}

// want says what r accepts ("give 1 to 200"), its bounds written by show.
func (r numRange) want(show func(int64) string) string {
	switch {
	case r.zero != "":
		return fmt.Sprintf("give 0 (%s) or %s to %s", r.zero, show(r.min), show(r.max))
	case r.max == 0:
		return fmt.Sprintf("give %s or more", show(r.min))
	}
	return fmt.Sprintf("give %s to %s", show(r.min), show(r.max))
}

// Flag value errors as the command line parser words them.
var (
	// "--k: expected int value but got "EOL" (<EOL>)": the flag ends the
	// command line.
	noValue = lazyregexp.New(`^--([a-z0-9-]+): (?:expected \w+ value but got "EOL" \(<EOL>\)|missing value, expecting .*)$`)
	// "--k: expected a valid 64 bit int but got "abc"".
	notInt = lazyregexp.New(`^--([a-z0-9-]+): expected a valid \d+ bit u?int but got "(.*)"$`)
	// "--wait: expected duration but got "10": time: missing unit …".
	digits      = lazyregexp.New(`^[+-]?[0-9]+$`)
	notDuration = lazyregexp.New(`^--([a-z0-9-]+): expected duration but got "(.*)": time: .*$`)
)

// plainParseError rewords the parser's errors about a flag's value
// (jargon such as "EOL" and "64 bit int", a short flag shown as "--k")
// into what to give, naming the flag as the user types it; other errors
// are returned as they are.
func plainParseError(model *kong.Application, err error) error {
	msg := err.Error()
	if m := noValue.FindStringSubmatch(msg); m != nil {
		f := findFlag(model.Node, m[1])
		if f == nil {
			return err
		}
		what := ""
		switch {
		case f.Target.Type() == durationType:
			what = " (a duration, e.g. 30s)"
		case isNumber(f.Target.Type()):
			what = " (a number)"
		}
		return usageErrorf("%s needs a value%s", flagName(f), what)
	}
	if m := notInt.FindStringSubmatch(msg); m != nil {
		f := findFlag(model.Node, m[1])
		if f == nil {
			return err
		}
		want := "give a whole number"
		if r, ok := flagRanges[f.Name]; ok {
			want = r.want(func(n int64) string { return strconv.FormatInt(n, 10) })
		}
		if digits.MatchString(m[2]) {
			return usageErrorf("%s %s is out of range; %s", flagName(f), m[2], want)
		}
		return usageErrorf("%s %q is not a whole number; %s", flagName(f), m[2], want)
	}
	if m := notDuration.FindStringSubmatch(msg); m != nil {
		f := findFlag(model.Node, m[1])
		if f == nil {
			return err
		}
		return usageErrorf("%s %q is not a duration; give a number with its unit, e.g. 1500ms, 30s or 5m", flagName(f), m[2])
	}
	return err
}

// findFlag is the flag called name in n or a command below it.
func findFlag(n *kong.Node, name string) *kong.Flag {
	for _, f := range n.Flags {
		if f.Name == name {
			return f
		}
	}
	for _, c := range n.Children {
		if f := findFlag(c, name); f != nil {
			return f
		}
	}
	return nil
}

// shortDuration writes d as a person would: 10m, 1h30m, 1.5s, not 10m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// negativeValue is an argument that is a negative number or duration,
// never a flag: no flag of this command line is a digit.
var negativeValue = lazyregexp.New(`^-[0-9.]`)

// joinNegativeValues rewrites "--flag -1" as "--flag=-1" for the number
// flags of the model, so that a negative value is read as the value it is
// (and refused by checkRanges with its range) rather than as an unknown
// short flag "-1".
func joinNegativeValues(model *kong.Application, args []string) []string {
	numbers := map[string]string{} // as written -> --long
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if isNumber(f.Target.Type()) {
				numbers["--"+f.Name] = "--" + f.Name
				if f.Short != 0 {
					numbers["-"+string(f.Short)] = "--" + f.Name
				}
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(model.Node)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if long, ok := numbers[a]; ok && i+1 < len(args) && negativeValue.MatchString(args[i+1]) {
			out = append(out, long+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// checkUTF8 refuses an argument that is not valid UTF-8: the command line
// parser would replace its bad bytes with U+FFFD, so a query (or a name,
// or a path) would silently become another one.
func checkUTF8(args []string) error {
	for _, a := range args {
		if !utf8.ValidString(a) {
			return usageErrorf("argument %q is not valid UTF-8, and the command line would change its bytes: give it as UTF-8 (convert it with iconv, for example)", a)
		}
	}
	return nil
}

// usageError is a mistake in the command line found after it parsed: it
// is reported as kong's own (one line, where to read more, exit 2, JSON
// kind "usage").
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}
