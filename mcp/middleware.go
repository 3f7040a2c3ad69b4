package mcp

import (
	"context"
	"fmt"
	"runtime/debug"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxErrorText bounds a tool error's text. Validation messages (the SDK's
// and the scope package's) quote the offending value, and a hostile
// argument can be megabytes long: the model needs the gist, not an echo.
const maxErrorText = 2000

// guardTools is receiving middleware for tools/call: it turns a panic in
// a handler into a tool error (the server keeps serving; the stack goes
// to the log) and shortens over-long error texts.
func (s *Server) guardTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
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
		if r, ok := res.(*sdk.CallToolResult); ok && r.IsError {
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok && len(tc.Text) > maxErrorText {
					tc.Text = trunc(tc.Text[:maxErrorText]) + " (message cut)"
				}
			}
		}
		return res, err
	}
}
