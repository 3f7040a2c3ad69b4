package tables

import (
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// SymbolID returns the sid of the occurrence-th (0-based) symbol with this
// kind and qualname in the file at path: "s" and 16 hex digits of
// xxhash64(path \x00 kind \x00 qualname \x00 occurrence). It does not
// depend on line numbers, so a symbol keeps its sid when code above it
// moves, and loses it only when it is renamed, changes kind, or moves
// to another file.
func SymbolID(path, kind, qualname string, occurrence int) string {
	var d xxhash.Digest
	d.Reset()
	d.WriteString(path)
	d.WriteString("\x00")
	d.WriteString(kind)
	d.WriteString("\x00")
	d.WriteString(qualname)
	d.WriteString("\x00")
	var buf [20]byte
	d.Write(strconv.AppendInt(buf[:0], int64(occurrence), 10))
	return hexID('s', d.Sum64())
}

// ChunkID returns the cid of the chunk spanning lines start..end of the
// file at path: "c" and 16 hex digits of xxhash64(path \x00 "start-end").
func ChunkID(path string, startLine, endLine int) string {
	var d xxhash.Digest
	d.Reset()
	d.WriteString(path)
	d.WriteString("\x00")
	var buf [44]byte
	b := strconv.AppendInt(buf[:0], int64(startLine), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(endLine), 10)
	d.Write(b)
	return hexID('c', d.Sum64())
}

// Hex returns h as the 16 lower-case hex digits stored in hash columns.
func Hex(h uint64) string {
	var b [16]byte
	putHex(b[:], h)
	return string(b[:])
}

func hexID(prefix byte, h uint64) string {
	var b [17]byte
	b[0] = prefix
	putHex(b[1:], h)
	return string(b[:])
}

func putHex(b []byte, h uint64) {
	const digits = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		b[i] = digits[h&0xf]
		h >>= 4
	}
}

// joinList renders a list column: items '\n'-joined with a leading and a
// trailing '\n', so that instr(col, char(10)||x||char(10)) tests exact
// membership. Empty items are dropped and a '\n' inside an item becomes
// a space, since either would break that test. An empty list is "".
func joinList(sb *strings.Builder, items []string) string {
	n := 1
	for _, s := range items {
		n += len(s) + 1
	}
	if n == 1 {
		return ""
	}
	sb.Reset()
	sb.Grow(n)
	sb.WriteByte('\n')
	wrote := false
	for _, s := range items {
		if s == "" {
			continue
		}
		wrote = true
		if strings.IndexByte(s, '\n') >= 0 {
			s = strings.ReplaceAll(s, "\n", " ")
		}
		sb.WriteString(s)
		sb.WriteByte('\n')
	}
	if !wrote {
		return ""
	}
	return sb.String()
}

// joinPlain renders imports and exports: '\n'-joined, nothing around.
func joinPlain(items []string) string { return strings.Join(items, "\n") }
