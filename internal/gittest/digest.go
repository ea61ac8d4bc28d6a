package gittest

import (
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"path/filepath"
)

// errNoDigest, from digestFolder's content function, says the folder
// holds something its bytes do not describe: no digest.
var errNoDigest = errors.New("gittest: not described by its bytes")

// digestFolder writes into h every entry under dir, in WalkDir's order:
// its slash path, its mode and, for a file, what content returns (the
// bytes that matter of it: a file's own, or less, or a link's target). It
// is the one walk of the in-process memos (Commit's replay and the
// server's Memo), which name a repository's state by its bytes. enter,
// when not nil, is called with each entry's path before anything of it is
// read (its mode, a file's content, a folder's entries). false when the
// walk fails, or enter or content returns an error (errNoDigest: not
// described by its bytes).
func digestFolder(h hash.Hash, dir string, enter func(p string, d fs.DirEntry) error, content func(rel, p string, d fs.DirEntry) ([]byte, error)) bool {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if enter != nil {
			if err := enter(p, d); err != nil {
				return err
			}
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		var data []byte
		if !d.IsDir() {
			if data, err = content(rel, p, d); err != nil {
				return err
			}
		}
		fmt.Fprintf(h, "%d:%s %v %d:", len(rel), rel, info.Mode(), len(data))
		h.Write(data)
		return nil
	})
	return err == nil
}
