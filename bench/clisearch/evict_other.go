//go:build !linux

package main

import "errors"

// evictSegments is Linux's only (posix_fadvise).
func evictSegments(string) (int, error) {
	return 0, errors.New("-evict: Linux only")
}
