package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
)

type versionCmd struct {
	JSON bool `help:"Print JSON: version, go, os, arch and the index schema version."`
}

// versionInfo is what `viberag version --json` prints.
type versionInfo struct {
	Version       string `json:"version"`
	Go            string `json:"go"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
	SchemaVersion int    `json:"schema_version"`
}

func (c *versionCmd) Run(ctx context.Context) error {
	v := versionInfo{Version: indexer.Version(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, SchemaVersion: tables.SchemaVersion}
	if c.JSON {
		return writeJSON(os.Stdout, v)
	}
	_, err := fmt.Printf("viberag %s (%s, %s/%s, index schema %d)\n", v.Version, v.Go, v.OS, v.Arch, v.SchemaVersion)
	return err
}
