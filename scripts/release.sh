#!/usr/bin/env bash
# Builds viberag's release binary for the machine's own OS and architecture
# and checks it. On Linux the binary is fully static (libc linked in), so
# it runs on any distribution of that architecture.
#
#   scripts/release.sh [OUT_DIR]      (default: dist/)
#
# viberag needs cgo (the tree-sitter runtime and grammars are C), so a
# release binary is built on, or with a C toolchain for, its target:
#   - Linux amd64/arm64: this script, on a Linux machine of that
#     architecture (or with CC set to a cross compiler such as
#     aarch64-linux-gnu-gcc and GOARCH=arm64).
#   - macOS: on a Mac with the Xcode command-line tools, `go build
#     -trimpath ./cmd/viberag` for each of GOARCH=arm64 and amd64 (macOS
#     has no static libc; the binary links only the system's libSystem),
#     optionally joined with `lipo -create`.
#   - Windows: on Windows with a MinGW-w64 gcc (e.g. from MSYS2) on PATH,
#     or from Linux with CC=x86_64-w64-mingw32-gcc GOOS=windows
#     GOARCH=amd64 CGO_ENABLED=1 go build -trimpath ./cmd/viberag.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
mkdir -p "$out"
os="$(go env GOOS)"
arch="$(go env GOARCH)"
bin="$out/viberag-$os-$arch"
# -trimpath keeps local paths out of the binary; it also changes every
# package's build-cache key, so CI (which only checks that the binary is
# static and runs) sets RELEASE_TRIMPATH=0 to reuse the cache of its tests.
trim=-trimpath
[ "${RELEASE_TRIMPATH:-1}" = 0 ] && trim=
if [ "$os" = linux ]; then
  # The linker warns that SQLite's load_extension support uses dlopen in a
  # static binary; viberag never loads an extension from a file (its FTS5
  # is compiled in, tables/internal/fts5), so the warning is harmless. The
  # driver's sqlite_omit_load_extension tag, which would silence it, breaks
  # FTS5 (ADR 10).
  CGO_ENABLED=1 go build $trim -tags netgo,osusergo \
    -ldflags "-s -w -linkmode external -extldflags -static" -o "$bin" ./cmd/viberag
  # A static binary has no program interpreter (no dynamic loader).
  if readelf -l "$bin" | grep -q 'INTERP'; then
    echo "release: $bin is dynamically linked" >&2
    exit 1
  fi
else
  CGO_ENABLED=1 go build $trim -ldflags "-s -w" -o "$bin" ./cmd/viberag
fi
"$bin" --help >/dev/null
echo "release: $bin ($(du -h "$bin" | cut -f1)), static, runs"
