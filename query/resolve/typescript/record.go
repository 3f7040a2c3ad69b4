package typescript

import (
	"context"
	"strings"
)

// tsRecordValue returns V for the library's Record<K, V> (not a type
// the repository declares under the name, as seen from file id) given
// string or number keys: the type of each of its members. ok is false for
// another type, and for keys of a union of literals, whose members are
// read as Record's other readers read them.
func tsRecordValue(ctx context.Context, dr *tsDeclReader, id int64, typ string) (string, bool) {
	name, args := tsTypeArgs(typ)
	if name != "Record" || len(args) != 2 {
		return "", false
	}
	if k := strings.TrimSpace(args[0]); k != "string" && k != "number" && k != "PropertyKey" {
		return "", false
	}
	if _, _, declared := dr.tsDeclFile(ctx, id, name); declared {
		return "", false
	}
	return args[1], true
}
