package lockfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/mod/sumdb/dirhash"
)

// HashDir returns the "h1:" hash of the files under dir, as go.sum hashes a
// module (dirhash.Hash1): names are slash-separated and relative to dir, and
// a symbolic link counts as a file whose content is its target (links are
// never followed). Directories themselves and file modes are not part of it.
func HashDir(dir string) (string, error) {
	var files []string
	links := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			links[rel] = target
		} else if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	h, err := dirhash.Hash1(files, func(name string) (io.ReadCloser, error) {
		if t, ok := links[name]; ok {
			return io.NopCloser(bytes.NewReader([]byte(t))), nil
		}
		return os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	})
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	return h, nil
}
