package query

import (
	"fmt"
	"strings"
	"testing"
)

// goFuncs returns Go source declaring one function for each name, with
// no words of the questions below.
func goFuncs(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "\nfunc %s(n int) int {\n\treturn n + 1\n}\n", n)
	}
	return b.String()
}

// TestModuleEntryGoPackageComment: a Go package comment describes its
// package from whichever file holds it, not only from doc.go. When the
// text channels find it, the module channel passes the finding on to the
// package's other files, and the file holding it, which defines part of
// the package, takes its share too. Directory evidence is off here, so
// only the module channel can list the sibling that shares no word with
// the question.
func TestModuleEntryGoPackageComment(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/peers\n\ngo 1.22\n",
		"cache/cache.go": "// Package cache provides a loading mechanism with deduplication that works across a set of peer processes.\npackage cache\n" +
			goFuncs("NewGroup", "Get", "Load", "LoadLocally", "PopulateCache", "Stats", "Name", "RegisterPeers"),
		"cache/sinks.go":   "package cache\n" + goFuncs("StringSink", "ByteSink", "PutBytes", "PutString"),
		"ring/ring.go":     "// Package ring keeps peer processes on a hash ring.\npackage ring\n" + goFuncs("New", "Add"),
		"ring/weights.go":  "package ring\n" + goFuncs("Weigh", "Spread", "Balance", "Rebalance"),
		"cmd/peer/main.go": "// Command peer starts one of the processes.\npackage main\n" + goFuncs("main"),
	}
	db := indexedFiles(t, files)
	tune := DefaultTuning()
	tune.WDir = 0
	req := Request{Query: "how does this work: provides a loading mechanism with deduplication that works across a set of peer processes", Limit: 10}
	hits := tunedHits(t, db, tune, req)
	var got []string
	for _, h := range hits {
		got = append(got, h.Path)
	}
	if len(got) < 2 || got[0] != "cache/cache.go" || got[1] != "cache/sinks.go" {
		t.Errorf("hits %v; want cache/cache.go, then its sibling cache/sinks.go", got)
	}
}

// TestModuleEntryThatDefines: a module entry that defines the module's
// parts (a Rust mod.rs holding the functions its doc describes) is one of
// the module's files: it takes the module evidence it lends to its
// siblings, so a larger sibling does not pass it on that evidence alone.
func TestModuleEntryThatDefines(t *testing.T) {
	var spawn strings.Builder
	spawn.WriteString("use super::Scope;\n")
	for _, n := range []string{"spawn_one", "spawn_two", "spawn_many", "spawn_fifo"} {
		fmt.Fprintf(&spawn, "\npub fn %s(s: &Scope) -> usize {\n    let n = 1;\n    let m = n + 1;\n    m + s.len()\n}\n", n)
	}
	scopeMod := "//! Methods for custom fork-join scopes, a more flexible alternative to join.\nmod spawn;\n\npub struct Scope {\n    n: usize,\n}\n"
	for _, n := range []string{"scope", "scope_fifo", "in_place_scope", "in_place_scope_fifo", "len"} {
		scopeMod += fmt.Sprintf("\npub fn %s(n: usize) -> Scope {\n    let m = n + 1;\n    let k = m + 1;\n    Scope { n: k }\n}\n", n)
	}
	files := map[string]string{
		"Cargo.toml":          "[package]\nname = \"pool\"\nversion = \"0.1.0\"\n",
		"src/lib.rs":          "//! A thread pool.\npub mod scope;\npub mod registry;\n\npub fn current_num_threads() -> usize {\n    1\n}\n",
		"src/scope/mod.rs":    scopeMod,
		"src/scope/spawn.rs":  spawn.String(),
		"src/registry.rs":     "//! The registry of worker threads.\npub struct Registry {\n    threads: usize,\n}\n",
		"src/join/mod.rs":     "//! Runs two closures, potentially in parallel.\npub fn join_context() -> usize {\n    2\n}\n",
		"src/join/context.rs": "pub struct Context {\n    migrated: bool,\n}\n",
	}
	db := indexedFiles(t, files)
	req := Request{Query: "how does this work: methods for custom fork-join scopes, a more flexible alternative to join", Limit: 10}
	m, s := firstRank(t, db, DefaultTuning(), req, "src/scope/mod.rs"), firstRank(t, db, DefaultTuning(), req, "src/scope/spawn.rs")
	if m != 1 || s == 0 {
		t.Errorf("src/scope/mod.rs at rank %d, src/scope/spawn.rs at %d; want mod.rs first and spawn.rs listed", m, s)
	}
}

// TestModuleEntryLendsToSiblings: files that describe their directory
// beyond doc.go and __init__.py. A Scala package object (package.scala)
// holds its package's doc and shared definitions; a file named like its
// directory (plugins/Plugins.java, size/Size.kt, lru/lru.go) is the
// directory's main file by a convention most languages keep. With
// directory evidence off, only the module channel can list the sibling
// that shares no word with the question.
func TestModuleEntryLendsToSiblings(t *testing.T) {
	for _, tc := range []struct {
		name, query, sibling string
		files                map[string]string
	}{
		{
			name:    "Scala package object",
			query:   "how does this work: implementation of the reactive protocol for subscribers and publishers",
			sibling: "src/main/scala/streams/interop/Relay.scala",
			files: map[string]string{
				"build.sbt": "name := \"streams\"\n",
				"src/main/scala/streams/interop/package.scala": "package streams\n\n/** Implementation of the reactive protocol for subscribers and publishers. */\npackage object interop {\n  type Callback = Int => Unit\n}\n",
				"src/main/scala/streams/interop/Relay.scala":   "package streams.interop\n\nclass Relay {\n  def forward(n: Int): Int = n + 1\n  def drain(n: Int): Int = n - 1\n  def close(): Unit = ()\n}\n",
				"src/main/scala/streams/Chunk.scala":           "package streams\n\nclass Chunk {\n  def size: Int = 0\n}\n",
			},
		},
		{
			name:    "file named like its directory",
			query:   "how does this work: access to behaviour that can be reconfigured by extensions loaded at startup",
			sibling: "src/main/java/org/acme/plugins/PluginRegistry.java",
			files: map[string]string{
				"src/main/java/org/acme/plugins/Plugins.java":        "package org.acme.plugins;\n\n/** Access to behaviour that can be reconfigured by extensions loaded at startup. */\npublic class Plugins {\n  public static Object get() { return null; }\n}\n",
				"src/main/java/org/acme/plugins/PluginRegistry.java": "package org.acme.plugins;\n\npublic class PluginRegistry {\n  public Object first() { return null; }\n  public Object second() { return null; }\n  public Object third() { return null; }\n  public Object fourth() { return null; }\n}\n",
				"src/main/java/org/acme/Core.java":                   "package org.acme;\n\n/** The core. */\npublic class Core {\n  public int size() { return 0; }\n}\n",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := indexedFiles(t, tc.files)
			tune := DefaultTuning()
			tune.WDir = 0
			req := Request{Query: tc.query, Limit: 10}
			if r := firstRank(t, db, tune, req, tc.sibling); r == 0 {
				t.Errorf("%s not listed; want it lent the module entry's evidence", tc.sibling)
			}
		})
	}
}
