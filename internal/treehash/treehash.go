// Package treehash owns the lock's "h1:" hash of a package's files, as
// go.sum hashes a module (dirhash.Hash1), and each file's sum: lockfile
// records and checks it (ValidHash), the workspace computes it on install,
// update and verify, and gitengine sums each file it writes. It imports
// no ctx package, so that gitengine need not link lockfile (its JSON
// decoding and validator) for a file's sum.
package treehash

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HashDir returns the "h1:" hash of the files under dir, as go.sum hashes a
// module (dirhash.Hash1): names are slash-separated and relative to dir, and
// a symbolic link counts as a file whose content is its target (links are
// never followed). Directories themselves and file modes are not part of it.
func HashDir(dir string) (string, error) {
	files := map[string]string{}
	err := WalkFiles(dir, func(rel string, _ fs.DirEntry) error {
		files[rel] = dir
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

// WalkFiles calls fn for each file HashDir hashes under dir: every entry
// that is not a directory (a symbolic link is one, never followed), in
// lexical order, named by its slash-separated path relative to dir. Its
// name and type come from reading its folder, with no lstat a file. The
// first error, the walk's or fn's, ends it.
func WalkFiles(dir string, fn func(rel string, d fs.DirEntry) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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
		return fn(filepath.ToSlash(rel), d)
	})
}

// HashTree returns the "h1:" hash HashDir would give a folder holding the
// files of files (slash-separated path → the folder it is read from), as
// when a tree is spread over two folders. Each must be a regular file or a
// symbolic link, read as HashDir reads it.
func HashTree(files map[string]string) (string, error) {
	h, _, err := HashTreeSums(files, nil)
	return h, err
}

// HashTreeSums is HashTree that also returns each file's sum (FileSum), and
// reads only the files whose sum known lacks: a caller that recorded a
// file's sum when it last read it, and can prove the file unchanged since
// (workspace: its state's stamps), passes it there.
//
// The hash is dirhash.Hash1's (go.sum's "h1:"): the SHA-256 of the lines
// "<sum>  <name>\n" in name order. It is written here, and tested equal to
// dirhash.Hash1, because Hash1 reads every file itself and cannot be given
// a sum.
func HashTreeSums(files map[string]string, known map[string]string) (string, map[string]string, error) {
	names := slices.Sorted(maps.Keys(files))
	sums := make(map[string]string, len(names))
	h := sha256.New()
	for _, name := range names {
		if strings.Contains(name, "\n") {
			return "", nil, errors.New("dirhash: filenames with newlines are not supported")
		}
		sum, ok := known[name]
		if !ok {
			var err error
			if sum, err = FileSum(filepath.Join(files[name], filepath.FromSlash(name))); err != nil {
				return "", nil, err
			}
		}
		sums[name] = sum
		fmt.Fprintf(h, "%s  %s\n", sum, name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil)), sums, nil
}

// FileSum is the SHA-256 (lower-case hex) of the file at p as HashDir reads
// it: a regular file's content, a symbolic link's target (never followed).
func FileSum(p string) (string, error) {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return "", err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		return SumOf([]byte(target)), nil
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s: not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hf := sha256.New()
	if _, err := io.Copy(hf, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(hf.Sum(nil)), nil
}

// ValidHash reports whether s is an "h1:" hash: base64 of 32 bytes.
func ValidHash(s string) bool {
	rest, ok := strings.CutPrefix(s, "h1:")
	if !ok {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	return err == nil && len(b) == 32
}

// SumOf is FileSum of a file (or link target) whose bytes are data.
func SumOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Summer computes FileSum of bytes as they are written to it, for a
// writer of files (gitengine) that has them in hand.
type Summer struct{ h hash.Hash }

// NewSummer returns an empty Summer.
func NewSummer() *Summer { return &Summer{h: sha256.New()} }

// Write adds p; it never fails.
func (s *Summer) Write(p []byte) (int, error) { return s.h.Write(p) }

// Sum is FileSum of what was written.
func (s *Summer) Sum() string { return hex.EncodeToString(s.h.Sum(nil)) }
