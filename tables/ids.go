package tables

import (
	"fmt"
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
	return hexID('s', symbolKey(path, kind, qualname, occurrence))
}

// symbolKey is the 64 bits a sid spells: symbols.sid stores them as an
// INTEGER (see idValue).
func symbolKey(path, kind, qualname string, occurrence int) uint64 {
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
	return d.Sum64()
}

// ChunkID returns the cid of the chunk spanning lines start..end of the
// file at path: "c" and 16 hex digits of xxhash64(path \x00 "start-end").
func ChunkID(path string, startLine, endLine int) string {
	return hexID('c', chunkKey(path, startLine, endLine))
}

// chunkKey is the 64 bits a cid spells (chunks.cid).
func chunkKey(path string, startLine, endLine int) uint64 {
	var d xxhash.Digest
	d.Reset()
	d.WriteString(path)
	d.WriteString("\x00")
	var buf [44]byte
	b := strconv.AppendInt(buf[:0], int64(startLine), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(endLine), 10)
	d.Write(b)
	return d.Sum64()
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

// The index stores sids, cids and the hashes of symbols and chunks as the
// INTEGER their hex digits spell (the 64 bits as a signed integer): 8
// bytes in a row and its index instead of 17 (ADR 12). Readers give and
// take the strings; these convert.

// idValue returns the INTEGER stored for id, an id string of the given
// prefix ('s', 'c', or 0 for a bare hash): the prefix and exactly 16
// lower-case hex digits. For anything else it returns nil, which equals
// no stored value in SQL, so a malformed id finds nothing.
func idValue(prefix byte, id string) any {
	if prefix != 0 {
		if len(id) != 17 || id[0] != prefix {
			return nil
		}
		id = id[1:]
	}
	if len(id) != 16 {
		return nil
	}
	var v uint64
	for i := 0; i < 16; i++ {
		c := id[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			return nil
		}
		v = v<<4 | uint64(c)
	}
	return int64(v)
}

// idOrNone is idValue for a column where "" means none (parent_sid,
// symbol_sid: NULL), for comparisons with IS: "" is nil, and so is a
// malformed id, which then matches the rows with none. Callers pass only
// ids read from the index.
func idOrNone(prefix byte, id string) any {
	if id == "" {
		return nil
	}
	return idValue(prefix, id)
}

// idText scans an INTEGER id or hash column into a string: the prefix and
// 16 hex digits, "" for NULL.
type idText struct {
	dst    *string
	prefix byte
}

func (t idText) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*t.dst = ""
	case int64:
		if t.prefix == 0 {
			*t.dst = Hex(uint64(x))
		} else {
			*t.dst = hexID(t.prefix, uint64(x))
		}
	default:
		return fmt.Errorf("id column holds %T, want an integer", v)
	}
	return nil
}

// sidOf, cidOf and hashOf scan the INTEGER id and hash columns into
// their strings.
func sidOf(dst *string) idText  { return idText{dst, 's'} }
func cidOf(dst *string) idText  { return idText{dst, 'c'} }
func hashOf(dst *string) idText { return idText{dst, 0} }

// sidSQL and cidSQL render an INTEGER sid or cid column as its string in
// SQL (printf's %x reads the integer as unsigned): vectors name their
// owners by these strings.
func sidSQL(col string) string { return "printf('s%016x', " + col + ")" }
func cidSQL(col string) string { return "printf('c%016x', " + col + ")" }

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
