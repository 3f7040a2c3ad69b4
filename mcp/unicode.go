package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// JSON text is Unicode, and a request that is not reaches no tool: the
// SDK's decoding turns bytes that are not UTF-8, and \u escapes of lone
// surrogates, into U+FFFD, so a query or a path would silently become
// another ("gr\xffeet" would search for "gr\uFFFDeet"). Both transports
// check a request's raw bytes first (checkUnicode) and answer a parse
// error (-32700) that says so. A lone surrogate is refused like a bad
// byte: no query and no path can hold one (Go strings, file names as
// answers give them and SQLite text are UTF-8, which has no surrogates),
// so it can only be a client's mistake. A file name that is not UTF-8 is
// sent in its index form (fileset.IndexPath), which is.

// checkUnicode reports why data, a JSON request, is not Unicode text: a
// byte sequence that is not UTF-8, or a \u escape of a lone surrogate.
func checkUnicode(data []byte) error {
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return fmt.Errorf("parse error: the request is not valid UTF-8 (byte 0x%02X at offset %d), which JSON requires; send a file name that is not UTF-8 as answers spell it (bad%%FF.go)", data[i], i)
	}
	if bytes.IndexByte(data, '\\') < 0 {
		return nil
	}
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			if i+5 < len(data) && data[i+1] == 'u' {
				if r, ok := hex4(data[i+2 : i+6]); ok && r >= 0xD800 && r <= 0xDFFF {
					if r <= 0xDBFF && i+11 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
						if lo, ok := hex4(data[i+8 : i+12]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
							i += 11 // a pair: one character beyond the BMP
							continue
						}
					}
					return fmt.Errorf(`parse error: the request is not valid Unicode (\u%04x at offset %d is half of a surrogate pair, alone); no query or path can hold it`, r, i)
				}
			}
			i++ // the escaped character
		}
	}
	return nil
}

// hex4 decodes four hex digits.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// requestID is the id of the request in data when it is one JSON object
// with an id MCP allows, spelled in UTF-8; nil (null) otherwise.
func requestID(data []byte) json.RawMessage {
	var obj struct {
		ID json.RawMessage `json:"id"`
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &obj) != nil || !validID(obj.ID) || checkUnicode(obj.ID) != nil {
		return nil
	}
	return obj.ID
}

// refuseNonUnicode answers an HTTP request whose body is not Unicode text
// (err, from checkUnicode) with a JSON-RPC parse error, under the
// request's id when it can be read.
func refuseNonUnicode(w http.ResponseWriter, body []byte, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(append(encodeResponse(requestID(body), nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: err.Error()}), '\n'))
}
