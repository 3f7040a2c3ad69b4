//go:build !unix

package testkit

import "errors"

func limitFileSize(uint64) error {
	return errors.New("file size limits need a unix system")
}
