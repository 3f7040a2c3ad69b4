//go:build !unix

package mcp

// descriptorLimit: no per-process descriptor limit to respect.
func descriptorLimit() int { return 1 << 16 }
