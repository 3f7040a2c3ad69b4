package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolNames lists the tools the server offers, in the order listed.
var ToolNames = []string{
	"codebase_search", "get_symbol_details", "find_references", "get_surrounding_code",
	"read_file_lines", "index", "get_status", "cancel_indexing",
}

// Tool descriptions are written for the model that calls them: what the
// tool is for, when to use it instead of another, and what to call next.
const (
	descSearch = `Search this repository's code index. Use it first for any question about the code: where something is defined or handled, how a feature works, which file implements X. ` +
		`Accepts identifiers, phrases, error messages and natural-language questions; intent and scope narrow the search. ` +
		`Hits carry ids: follow one with get_symbol_details (definition, signature, code), find_references (callers, importers) or get_surrounding_code (what is around it), and read exact lines with read_file_lines.`
	descSymbol = `Get one symbol's full details by id (from codebase_search or find_references): kind, qualified name, signature, docstring, location, parent, and optionally its code. ` +
		`Use it when a search hit looks right and you need its definition; then find_references for its uses.`
	descRefs = `Find where a symbol is used: calls, imports, type uses and mentions, with their enclosing symbols. ` +
		`Give symbol_id (from a hit) or symbol_name: the answer is one definition's references, each marked resolved (what is written at the use ties it there: a qualifier, an import, the same file or package), likely (the only definition it can be) or name_only (another definition of the name could be meant), in that order; lines tied elsewhere are counted in left_out. ` +
		`A bare name several definitions share answers for the most used one and lists the others (definitions, with counts). Page with offset = next_offset. Use it for impact analysis before changing a symbol; follow a hit with get_surrounding_code or read_file_lines.`
	descSurrounding = `Show what surrounds a symbol or chunk (id from another tool): the enclosing symbol, the anchor's code, and its nearest sibling symbols before and after with signatures and line distances. ` +
		`Use it to orient yourself in a file without reading all of it; read more with read_file_lines.`
	descRead = `Read lines of an indexed file as it is on disk now. Paths are repository-relative as results give them; files outside the repository or not indexed (secrets, ignored, skipped) are refused. ` +
		`Returns at most 400 lines per call; when truncated, continue at next_start_line. Prefer codebase_search to find where to look first.`
	descIndex = `Bring the index up to date now and wait for it, with progress notifications. Rarely needed: the server re-indexes changed files by itself within about a second. ` +
		`Use it when get_status says the index is not current and you need it to be, or with force=true to re-parse everything. Joins a run already in progress.`
	descStatus = `Report the index's state: whether it is current with the work tree (and why not), file/symbol counts, files skipped by reason, last indexed commit and time, the run in progress, the file watcher's mode and warnings. ` +
		`Use it when results look stale or incomplete, or index_state is not ready.`
	descCancel = `Stop the index run in progress (and any queued one). Files indexed so far are kept; searches keep working. Use it when a run started by index takes too long.`
)

func (s *Server) addTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	s.addSearchTools(ro)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "get_surrounding_code", Description: descSurrounding, Annotations: ro}, s.getSurroundingCode)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "read_file_lines", Description: descRead, Annotations: ro}, s.readFileLines)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "index", Description: descIndex,
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false), OpenWorldHint: new(false)}}, s.index)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "get_status", Description: descStatus, Annotations: ro, OutputSchema: statusSchema()}, s.getStatus)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "cancel_indexing", Description: descCancel,
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false), OpenWorldHint: new(false)}}, s.cancelIndexing)
}
