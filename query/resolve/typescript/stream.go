package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsEnqueuedType returns the type of the values a literal passed to
// c.enqueue(…) is written for (prefix ends in the call's "("), c being
// the controller the runtime's ReadableStream passes to the start or
// pull method of the literal its construction is given with a type
// argument ("new ReadableStream<R>({ start(c) { … c.enqueue({…}) } })"):
// the runtime's ReadableStreamDefaultController<R> enqueues Rs. "" when
// the text does not say so.
func (lt *tsLiteralTyper) tsEnqueuedType(ctx context.Context, text []string, r *ref.Line, ln int, prefix string) string {
	m := tsEnqueueCall.FindStringSubmatch(prefix)
	if m == nil {
		return ""
	}
	return tsStreamValues(ctx, lt.decl, text, r, ln, m[1])
}

// tsSourceMethod matches the head of an underlying source's start or
// pull method taking one parameter, its indentation and the parameter
// the groups ("  start(controller) {").
var tsSourceMethod = lazyregexp.New(`^(\s*)(?:async\s+)?(?:start|pull)\s*\(\s*([\p{L}_$][\p{L}\p{N}_$]*)\s*\)\s*\{`)

// tsStreamValues returns R when c, at line ln of r's file, is the
// controller parameter of the start or pull method of the literal a
// construction of the runtime's ReadableStream is given with a type
// argument ("new ReadableStream<R>({ start(c) {"), the method's block
// open at ln; "" otherwise.
func tsStreamValues(ctx context.Context, dr *tsDeclReader, text []string, r *ref.Line, ln int, c string) string {
	if !dr.tsRuntimeType(ctx, r.FileID, "ReadableStream") {
		return ""
	}
	for n := ln; n >= 1 && n > ln-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		mm := tsSourceMethod.FindStringSubmatchIndex(l)
		if mm != nil && l[mm[4]:mm[5]] != c {
			mm = nil // another parameter's method
		}
		if mm == nil {
			if n < ln && declaresName(l, c) {
				return "" // another binding of the name
			}
			continue
		}
		if !openThrough(text, n, strings.LastIndexByte(l, '{')+1, ln) {
			return "" // a method closed above the call
		}
		bl, bc, ok := openingBrace(text, n, mm[3])
		if !ok {
			return ""
		}
		s := tsConstructed.FindStringSubmatch(tsTextBefore(text, bl, bc))
		if s == nil {
			return ""
		}
		return strings.TrimSpace(s[1])
	}
	return ""
}

// tsControllerType returns the runtime's type of v at r when v is the
// controller a ReadableStream of stated values passes to its source's
// start or pull (tsStreamValues): ReadableStreamDefaultController<R>,
// whose members (enqueue, error, close) are the runtime's.
func tsControllerType(ctx context.Context, dr *tsDeclReader, r *ref.Line, v string) string {
	text, err := dr.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return ""
	}
	if !dr.tsRuntimeType(ctx, r.FileID, "ReadableStreamDefaultController") {
		return ""
	}
	if t := tsStreamValues(ctx, dr, text, r, r.Line, v); t != "" {
		return "ReadableStreamDefaultController<" + t + ">"
	}
	return ""
}

var (
	// tsEnqueueCall matches an argument list opened by c.enqueue(.
	tsEnqueueCall = lazyregexp.New(`([\p{L}_$][\p{L}\p{N}_$]*)\s*\.\s*enqueue\s*\(\s*$`)
	// tsConstructed matches the construction of a runtime stream with a
	// type argument, its literal next: "new ReadableStream<R>(".
	tsConstructed = lazyregexp.New(`\bnew\s+ReadableStream\s*<(.+)>\s*\(\s*$`)
)
