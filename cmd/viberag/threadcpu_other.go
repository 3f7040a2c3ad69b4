//go:build !linux

package main

// threadCPU: not measured on this platform (see threadcpu_linux.go).
func threadCPU() (float64, bool) { return 0, false }
