package gittest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Tree is an in-memory copy of a directory: its sub-directories, regular
// files (content, permission bits and modification times) and symbolic
// links.
type Tree struct {
	from    string // the directory it was read from
	entries []treeEntry
}

type treeEntry struct {
	rel  string // slash-separated, relative to the tree's root
	mode fs.FileMode
	mod  time.Time // a file's or a directory's modification time
	data []byte    // a file's content or a link's target
}

// ReadTree reads dir and everything under it into memory.
func ReadTree(dir string) (*Tree, error) {
	tr := &Tree{from: dir}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := treeEntry{rel: filepath.ToSlash(rel), mode: info.Mode(), mod: info.ModTime()}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			e.data = []byte(target)
		case d.Type().IsRegular():
			if e.data, err = os.ReadFile(p); err != nil {
				return err
			}
		case !d.IsDir():
			return fmt.Errorf("gittest: %s: cannot copy a %v", p, d.Type())
		}
		tr.entries = append(tr.entries, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gittest: read tree: %w", err)
	}
	return tr, nil
}

// Write recreates the tree under dir (made if missing). A text file (one
// without a NUL byte, such as a repository's config) that names the
// directory the tree was read from names dir instead, so a copy never
// points back at the original. Its files are new: modified now.
func (tr *Tree) Write(dir string) error { return tr.copyTo(dir, false) }

// WriteAsIs recreates the tree under dir as `cp -a` would: no file's
// content changes, so a file that names the directory the tree was read
// from still names it (a copied project whose index names its original),
// and files and directories keep their modification times (what compares
// them, an index's freshness, sees the copy as the original).
func (tr *Tree) WriteAsIs(dir string) error { return tr.copyTo(dir, true) }

// copyTo writes the tree under dir: Write's copy, or WriteAsIs's when asIs.
func (tr *Tree) copyTo(dir string, asIs bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gittest: write tree: %w", err)
	}
	from := []byte(tr.from)
	for _, e := range tr.entries {
		p := filepath.Join(dir, filepath.FromSlash(e.rel))
		var err error
		switch {
		case e.mode.IsDir():
			// Entries come parents first (ReadTree's walk): the parent
			// is there, and one mkdir does (MkdirAll stats first).
			if err = os.Mkdir(p, e.mode.Perm()); errors.Is(err, fs.ErrExist) {
				err = os.MkdirAll(p, e.mode.Perm())
			}
		case e.mode&fs.ModeSymlink != 0:
			err = os.Symlink(string(e.data), p)
		default:
			data := e.data
			if !asIs && bytes.Contains(data, from) && !bytes.Contains(data, []byte{0}) {
				data = bytes.ReplaceAll(data, from, []byte(dir))
			}
			if err = os.WriteFile(p, data, e.mode.Perm()); err == nil && asIs {
				err = os.Chtimes(p, e.mod, e.mod)
			}
		}
		if err != nil {
			return fmt.Errorf("gittest: write tree: %w", err)
		}
	}
	// Directories last, deepest first: writing into one changes its time.
	for i := len(tr.entries) - 1; i >= 0 && asIs; i-- {
		if e := tr.entries[i]; e.mode.IsDir() {
			if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(e.rel)), e.mod, e.mod); err != nil {
				return fmt.Errorf("gittest: write tree: %w", err)
			}
		}
	}
	return nil
}

// Cache builds each fixture directory once per process and writes copies
// of it after that, so a package's tests do not run git a dozen times for
// every test to make the same repository again. A fixture is named by a
// key; build must make the same directory and return the same value every
// time it is called with the same key (commit ids are stable: see Env).
// The zero Cache is ready to use, and it is safe for concurrent use.
type Cache[V any] struct {
	mu sync.Mutex
	m  map[string]*cacheEntry[V]
}

type cacheEntry[V any] struct {
	mu   sync.Mutex
	tree *Tree
	val  V
}

// Dir makes dir the fixture named key and returns build's value for it. The
// first call for a key runs build(dir) and keeps a copy of dir in memory;
// later calls write that copy to dir. A build that fails the test is not
// kept: the next call builds again.
func (c *Cache[V]) Dir(t TB, key, dir string, build func(dir string) V) V {
	t.Helper()
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*cacheEntry[V]{}
	}
	e := c.m[key]
	if e == nil {
		e = &cacheEntry[V]{}
		c.m[key] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tree != nil {
		if err := e.tree.Write(dir); err != nil {
			t.Fatalf("%v", err)
		}
		return e.val
	}
	val := build(dir)
	tree, err := ReadTree(dir)
	if err != nil {
		t.Fatalf("%v", err)
	}
	e.tree, e.val = tree, val
	return val
}
