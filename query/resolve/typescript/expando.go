package typescript

import (
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// tsConstFuncHead matches a const declaration without a stated type
// whose value is a function expression or an arrow function written on
// its line ("const f = async (a: A) => {", "const f = function (", "const
// f = x =>"), the name its group.
var tsConstFuncHead = lazyregexp.New(`^\s*(?:export\s+)?const\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[\p{L}_$][\p{L}\p{N}_$]*\s*=>)`)

// tsConstFunc reports whether line declares v a const holding a function
// expression or an arrow function: as for a function declaration, a
// property assigned to it (v.meta = …) declares a property of the
// function itself (an expando), no type's member. A stated type
// ("const f: F =") states its members instead.
func tsConstFunc(line, v string) bool {
	m := tsConstFuncHead.FindStringSubmatch(strings.TrimRight(line, " \t"))
	return m != nil && m[1] == v
}
