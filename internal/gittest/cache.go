package gittest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Tree is an in-memory copy of a directory: its sub-directories, regular
// files (content and permission bits) and symbolic links.
type Tree struct {
	from    string // the directory it was read from
	entries []treeEntry
}

type treeEntry struct {
	rel  string // slash-separated, relative to the tree's root
	mode fs.FileMode
	data []byte // a file's content or a link's target
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
		e := treeEntry{rel: filepath.ToSlash(rel), mode: info.Mode()}
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
// points back at the original.
func (tr *Tree) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gittest: write tree: %w", err)
	}
	from := []byte(tr.from)
	for _, e := range tr.entries {
		p := filepath.Join(dir, filepath.FromSlash(e.rel))
		var err error
		switch {
		case e.mode.IsDir():
			err = os.MkdirAll(p, e.mode.Perm())
		case e.mode&fs.ModeSymlink != 0:
			err = os.Symlink(string(e.data), p)
		default:
			data := e.data
			if bytes.Contains(data, from) && !bytes.Contains(data, []byte{0}) {
				data = bytes.ReplaceAll(data, from, []byte(dir))
			}
			err = os.WriteFile(p, data, e.mode.Perm())
		}
		if err != nil {
			return fmt.Errorf("gittest: write tree: %w", err)
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
