package main

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// evictSegments drops the page cache of the bleve segment files of the
// project dir (its .context/index/*/store/*.zap), written back first, and
// reports how many it dropped. The number of page faults a search takes
// on a mapped segment depends on how its pages came into the page cache,
// not on ctx: a segment that ctx just wrote sits in large folios, which a
// fault maps many pages at a time, while one read back through the
// mapping after the kernel reclaimed it (or copied by `cp -a`) sits in
// single pages: ~70 more faults a search on the 3-package project
// (walk23). Dropping every side's segments before the untimed warm-up
// run gives all binaries the same state.
func evictSegments(dir string) (int, error) {
	zaps, err := filepath.Glob(filepath.Join(dir, ".context", "index", "*", "store", "*.zap"))
	if err != nil {
		return 0, err
	}
	for _, z := range zaps {
		f, err := os.Open(z)
		if err != nil {
			return 0, err
		}
		err = unix.Fdatasync(int(f.Fd()))
		if err == nil {
			err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		}
		f.Close()
		if err != nil {
			return 0, &os.PathError{Op: "evict", Path: z, Err: err}
		}
	}
	return len(zaps), nil
}
