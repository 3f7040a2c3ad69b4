package lazyregexp

import (
	"sync"
	"testing"
)

func TestCompilesOnFirstUse(t *testing.T) {
	r := New(`a(b+)`)
	if r.re != nil {
		t.Fatal("New compiled the expression")
	}
	if got := r.FindStringSubmatch("xabbby"); len(got) != 2 || got[1] != "bbb" {
		t.Fatalf("FindStringSubmatch = %q, want [abbb bbb]", got)
	}
	if r.re == nil || r.Re() != r.re {
		t.Fatal("the compiled expression is not kept")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	r := New(`\d+`)
	var wg sync.WaitGroup
	got := make([]string, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = r.FindString("ab 42 cd")
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != "42" {
			t.Fatalf("goroutine %d: FindString = %q, want 42", i, g)
		}
	}
}

func TestInvalidPanicsOnFirstUse(t *testing.T) {
	r := New(`a(`)
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression did not panic on first use")
		}
	}()
	r.MatchString("a")
}
