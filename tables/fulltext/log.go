package fulltext

/*
#cgo linux LDFLAGS: -lm
#include <math.h>
*/
import "C"

// ln is the C library's natural logarithm. Go's math.Log differs from it
// in the last bit for some arguments, and FTS5's bm25 takes libm's: equal
// scores must stay equal, bit for bit, so that ties break alike.
func ln(x float64) float64 { return float64(C.log(C.double(x))) }
