package syntax

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
)

// runtimeMemory estimates the C memory of the process: its anonymous
// resident memory less what the Go runtime holds.
func runtimeMemory() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	var anon int64
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("RssAnon:")); ok {
			kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			anon = kb << 10
		}
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return anon - int64(s[0].Value.Uint64()-s[1].Value.Uint64())
}

// TestParseMemoryCountsFlatCopy: a parse under a memory limit holds about
// that limit of runtime memory, the flat copy of its tree included. 700 KB
// of parentheses nested 990 deep make a tree under the limit; counted
// alone, its copy (36 bytes a node) took half as much again beside it
// (156 MB resident). The allocator's own overhead (chunk headers, free
// lists) adds a fifth to what the limit counts.
func TestParseMemoryCountsFlatCopy(t *testing.T) {
	lang := MustLanguage("javascript", tsjs.Language())
	unit := "x = " + strings.Repeat("(", 990) + "1" + strings.Repeat(")", 990) + ";\n"
	src := []byte(strings.Repeat(unit, (700<<10)/len(unit)))
	p := NewParser()
	defer p.Close()
	base := runtimeMemory()
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var high int64
		for {
			select {
			case <-stop:
				peak <- high
				return
			case <-time.After(time.Millisecond):
			}
			high = max(high, runtimeMemory()-base)
		}
	}()
	_, err := p.Parse(context.Background(), lang, src, 0)
	close(stop)
	held := <-peak
	if err != nil && !errors.Is(err, ErrMemory) {
		t.Fatal(err)
	}
	if held > MaxParseMemory*7/5 {
		t.Fatalf("the parse held %d MB of runtime memory (err %v); its limit is %d MB", held>>20, err, MaxParseMemory>>20)
	}
}
