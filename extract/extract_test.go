package extract

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/extract/syntax"
)

// extractWithin extracts src and fails the test if Extract has not
// returned long after it should have (a hang, not a speed check).
func extractWithin(t *testing.T, path, src string, limit time.Duration) *File {
	t.Helper()
	type result struct {
		f   *File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := Extract(context.Background(), path, []byte(src), Options{})
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.f
	case <-time.After(limit):
		t.Fatalf("Extract(%s) still running after %v", path, limit)
		return nil
	}
}

// stuckReader ignores its context until released: a reader with a loop
// no budget sees.
type stuckReader struct{ release chan struct{} }

func (r stuckReader) read(context.Context, string, []byte, *syntax.Pool) (*Outline, error) {
	<-r.release
	return &Outline{}, nil
}

// TestRunReaderAbandonsStuckReader: a reader past its deadline is
// abandoned (the file falls back) instead of holding the run.
func TestRunReaderAbandonsStuckReader(t *testing.T) {
	r := stuckReader{release: make(chan struct{})}
	defer close(r.release)
	done := make(chan error, 1)
	go func() {
		_, err := runReader(context.Background(), r, "x.ts", nil, time.Millisecond, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.HasPrefix(err.Error(), "stuck:") {
			t.Fatalf("err = %v, want a stuck reader abandoned", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("runReader still waiting for a stuck reader after 30 s")
	}
}

func TestWithoutLicence(t *testing.T) {
	for _, tc := range []struct{ doc, base, want string }{
		{"Parses HTTP requests.", "req.go", "Parses HTTP requests."},
		{"req.go\n\nCopyright (c) 2014 Acme\n\nPermission is hereby granted, free of charge, to any person", "req.go", ""},
		{"Copyright 2024 The Authors.\nSPDX-License-Identifier: MIT\n\nA tiny router: routes, groups and middleware.", "router.ts", "A tiny router: routes, groups and middleware."},
		{"Licensed under the Apache License, Version 2.0 (the \"License\");\nyou may not use this file except in compliance", "A.java", ""},
		// A doc that talks about licences without being one stays.
		{"Reads LICENSE files and reports their SPDX identifiers.", "scan.py", "Reads LICENSE files and reports their SPDX identifiers."},
		{"", "x.c", ""},
	} {
		if got := withoutLicence(tc.doc, tc.base); got != tc.want {
			t.Errorf("withoutLicence(%q) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}
