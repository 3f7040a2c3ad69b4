package mcp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxErrorText bounds a tool error's text. Validation messages (the SDK's
// and the scope package's) quote the offending value, and a hostile
// argument can be megabytes long: the model needs the gist, not an echo.
const maxErrorText = 2000

// guardTools is receiving middleware: it gives every protocol error a
// JSON-RPC code, and for tools/call turns a panic in a handler into a
// tool error (the server keeps serving; the stack goes to the log) and
// shortens over-long error texts.
func (s *Server) guardTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		defer func() { err = codedError(err) }()
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		defer func() {
			if p := recover(); p != nil {
				name := ""
				if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil {
					name = r.Params.Name
				}
				s.log.Error("tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
				var r sdk.CallToolResult
				r.SetError(fmt.Errorf("internal error in %s: %v; the server is still running, and other tools work", name, p))
				res, err = &r, nil
			}
		}()
		res, err = next(ctx, method, req)
		if err != nil {
			// An unknown tool is a protocol error (-32602) with a nil
			// result: there is no text to shorten.
			return nil, err
		}
		if r, ok := res.(*sdk.CallToolResult); ok && r != nil && r.IsError {
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok && len(tc.Text) > maxErrorText {
					tc.Text = trunc(tc.Text[:maxErrorText]) + " (message cut)"
				}
			}
		}
		return res, err
	}
}

// codedError gives err a JSON-RPC code when it has none: the SDK's
// transports would send code 0, which the spec does not define. What
// reaches here uncoded is the server failing, not the request being bad.
func codedError(err error) error {
	if err == nil {
		return nil
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}
