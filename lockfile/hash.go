package lockfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/mod/sumdb/dirhash"
)

// HashDir returns the "h1:" hash of the files under dir, as go.sum hashes a
// module (dirhash.Hash1): names are slash-separated and relative to dir, and
// a symbolic link counts as a file whose content is its target (links are
// never followed). Directories themselves and file modes are not part of it.
func HashDir(dir string) (string, error) {
	files := map[string]string{}
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
		files[filepath.ToSlash(rel)] = dir
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	h, err := HashTree(files)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	return h, nil
}

// HashTree returns the "h1:" hash HashDir would give a folder holding the
// files of files (slash-separated path → the folder it is read from), as
// when a tree is spread over two folders. Each must be a regular file or a
// symbolic link, read as HashDir reads it.
func HashTree(files map[string]string) (string, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return dirhash.Hash1(names, func(name string) (io.ReadCloser, error) {
		p := filepath.Join(files[name], filepath.FromSlash(name))
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			return nil, err
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader([]byte(target))), nil
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s: not a regular file", p)
		}
		return os.Open(p)
	})
}
