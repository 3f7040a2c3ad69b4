package fileset

import (
	"context"
	"fmt"
	"io"
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
