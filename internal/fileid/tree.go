package fileid

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Tree stats the files under one folder (its root), for a check that
// stats thousands of them (the indexer's freshness check): where the
// system allows it (Linux, macOS) each relative to an open descriptor of
// the root (fstatat), so the kernel looks up the names below the root
// only, not every folder above it again for each file, and no path is
// built. As Lstat of the joined path, a symbolic link among the folders
// below the root is followed and the file's own final name is not; the
// root is opened once, following it as os.Stat does. On a machine where a
// system call costs microseconds, one fstatat a file from the root costs
// less than opening each folder to stat its files by their names (a third
// more calls on a tree of KEPs: bench/README.md, round 9). Not safe for
// concurrent use (give each goroutine its own); Close releases the root.
type Tree struct {
	root string
	tree
}

// NewTree is a Tree of the files under root. Nothing is opened until a
// file is stat'ed.
func NewTree(root string) *Tree {
	return &Tree{root: root}
}

// join is the path of rel under t's root, for errors and the systems
// without descriptors.
func (t *Tree) join(rel string) string {
	if rel == "." {
		return t.root
	}
	return filepath.Join(t.root, filepath.FromSlash(rel))
}

// Lstat is the stamp of the file at rel (slash-separated, under the root;
// "." is the root, followed as os.Stat follows it) and whether it is a
// regular file: Lstat(filepath.Join(root, rel)). A rel that is not a
// valid fs.ValidPath (absolute, with "..", not clean; a name that is not
// UTF-8 is allowed) is refused: from a descriptor it would name a file
// outside the root.
func (t *Tree) Lstat(rel string) (Stamp, bool, error) {
	if !validRel(rel) {
		return Stamp{}, false, &fs.PathError{Op: "lstat", Path: rel, Err: fs.ErrInvalid}
	}
	return t.lstat(rel)
}

// Info is os.Lstat of rel under the root (as Lstat: slash-separated,
// valid, "." the root followed as os.Stat follows it) from the open root:
// the stat data of a walk that needs a file's mode as well as its stamp
// (the dirty guard's), with Of and Change reading the stamp it holds. Its
// Sys is nil.
func (t *Tree) Info(rel string) (fs.FileInfo, error) {
	if !validRel(rel) {
		return nil, &fs.PathError{Op: "lstat", Path: rel, Err: fs.ErrInvalid}
	}
	return t.info(rel)
}

// validRel reports whether rel names a file under the root:
// fs.ValidPath, but for names that are not UTF-8, which the file systems
// allow (a Latin-1 name) and which cannot make an element "." or "..".
func validRel(rel string) bool {
	return fs.ValidPath(rel) || (!utf8.ValidString(rel) && fs.ValidPath(strings.ToValidUTF8(rel, "x")))
}

// base is the name Info gives rel: the root's own for ".", as os.Stat's.
func (t *Tree) base(rel string) string {
	if rel == "." {
		return filepath.Base(t.root)
	}
	return path.Base(rel)
}

// infoByPath is Info by the whole path (byPath's form).
func (t *Tree) infoByPath(rel string) (fs.FileInfo, error) {
	if rel == "." {
		return os.Stat(t.root)
	}
	return os.Lstat(t.join(rel))
}

// byPath is Lstat by the whole path: the form of a system without
// fstatat, and where the root cannot be opened for another reason than
// its absence (too many open files; a folder that can be searched but not
// read, where darwin opens it to read), as the check stat'ed before Tree.
func (t *Tree) byPath(rel string) (Stamp, bool, error) {
	if rel == "." {
		fi, err := os.Stat(t.root)
		if err != nil {
			return Stamp{}, false, err
		}
		return Of(fi), fi.Mode().IsRegular(), nil
	}
	return Lstat(t.join(rel))
}

// ReadFile reads the file at rel (slash-separated, valid as for Info)
// into buf, which it grows as needed, and returns the bytes read: a
// reader of many files (the dirty guard's hashing of a package no stamp
// proves unchanged) passes the same buffer each time and allocates
// nothing more per file, where the root is open without path walks from
// the top. A final symbolic link is not followed (an error: read it with
// os.Readlink), and a fifo does not block the read (it is opened
// non-blocking: an error or what it holds; elsewhere than Linux and
// macOS, what is not a regular file is an error).
func (t *Tree) ReadFile(rel string, buf []byte) ([]byte, error) {
	if !validRel(rel) || rel == "." {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: fs.ErrInvalid}
	}
	return t.readFile(rel, buf)
}
