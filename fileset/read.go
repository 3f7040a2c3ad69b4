package fileset

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// ReadRegular is the one way viberag reads a file it did not create: a
// candidate to index, an ignore file, the lines an agent asks for. The
// walk that listed a path saw a regular file, but the path may since have
// become a named pipe (whose open blocks until a writer comes), a device,
// a symbolic link or a much larger file. So ReadRegular opens without
// blocking and without following a final symbolic link, checks the opened
// descriptor (not the path, which can change again), and reads through a
// limit. A file that is no longer what was listed returns a *SkipError
// whose Reason is SkipNotRegular or SkipTooLarge; it is never read.
// maxSize <= 0 means no limit.
func ReadRegular(ctx context.Context, path string, maxSize int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := openNoBlock(path)
	if err != nil {
		if isLoop(err) {
			// O_NOFOLLOW fails with ELOOP on a link: the path was swapped.
			return nil, &SkipError{Reason: SkipNotRegular, Detail: "became a symbolic link"}
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &SkipError{Reason: SkipNotRegular, Detail: fi.Mode().Type().String()}
	}
	if maxSize > 0 && fi.Size() > maxSize {
		return nil, &SkipError{Reason: SkipTooLarge, Detail: fmt.Sprintf("%d bytes > limit %d", fi.Size(), maxSize)}
	}
	var r io.Reader = f
	if maxSize > 0 {
		r = io.LimitReader(f, maxSize+1) // +1: a file growing past the limit is seen
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if maxSize > 0 && int64(len(data)) > maxSize {
		return nil, &SkipError{Reason: SkipTooLarge, Detail: fmt.Sprintf("grew past the limit %d while read", maxSize)}
	}
	return data, nil
}

// SkipError says why ReadRegular did not read a file, as a Skipped reason.
type SkipError struct {
	Reason, Detail string
}

func (e *SkipError) Error() string { return e.Reason + ": " + e.Detail }

// ReadText reads a file as ReadRegular does and returns its text as UTF-8:
// a file that opens with a UTF-16 byte order mark (as Windows editors and
// Visual Studio save C# and resource files) is decoded, mark dropped, so
// that it is indexed, searched and read back as the same text, with the
// same lines. Other content is returned as read; CheckContent judges it.
// Every reader of a file's text for the index or an answer goes through
// here, so the content hash of one is the content hash of all.
func ReadText(ctx context.Context, path string, maxSize int64) ([]byte, error) {
	data, err := ReadRegular(ctx, path, maxSize)
	if err != nil {
		return nil, err
	}
	return DecodeText(data), nil
}

// DecodeText returns data as UTF-8 when it opens with a UTF-16 byte order
// mark (little- or big-endian); otherwise data itself. An odd last byte
// is dropped, and an unpaired surrogate becomes U+FFFD, as a decoder
// reading the file would show it.
func DecodeText(data []byte) []byte {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		order = binary.LittleEndian
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		order = binary.BigEndian
	default:
		return data
	}
	units := make([]uint16, 0, (len(data)-2)/2)
	for i := 2; i+1 < len(data); i += 2 {
		units = append(units, order.Uint16(data[i:]))
	}
	out := make([]byte, 0, len(units)*3/2)
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out
}
