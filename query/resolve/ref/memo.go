package ref

// Key keys a memo: a file, a line (or 0) and a name (or an offset).
type Key struct {
	File int64
	Line int
	Name string
}

// Memo returns m[k], reading it first when m has none.
func Memo[V any](m map[Key]V, k Key, read func() V) V {
	if v, ok := m[k]; ok {
		return v
	}
	v := read()
	m[k] = v
	return v
}
