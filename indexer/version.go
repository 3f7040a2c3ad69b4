package indexer

import (
	"runtime/debug"
	"strings"
)

// version is set at link time by release builds:
//
//	go build -ldflags "-X github.com/viberag/viberag/indexer.version=v1.2.3" ./cmd/viberag
//
// It is the only package-level variable written from outside the code,
// and only by the linker.
var version string

// Version is viberag's version: the one stamped with -ldflags (above)
// when there is one, else the main module's version from the build
// information (the tag for `go install …@v1.2.3`, a pseudo-version with
// the commit for a build in a git checkout), else "devel" with the
// commit when the build recorded one. The CLI (`viberag version`,
// --version), the MCP server's serverInfo and the index's tool_version
// all say this.
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return buildVersion(bi)
}

// buildVersion reads a version out of build information.
func buildVersion(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + strings.TrimSpace(rev) + dirty
}
