package gittest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// commits keeps, per process, what each `git add -A; git commit` made of a
// repository (see Commit): a test matrix that makes the same upstream
// history in every cell then runs git for the first cell only. It is a
// memo: the same repository state and message always make the same commit
// (Env fixes the identity and the dates), so what it holds never changes a
// result.
var commits commitMemo

type commitMemo struct {
	mu   sync.Mutex
	m    map[string]*commitResult
	hits int // commits replayed from m, for this package's tests
}

// commitSums keeps the sums of the files commitKey read and replay wrote,
// with their stamps (sumMemo): a file its stamp proves unchanged since
// (fileid.Stamp.Proves) is not read again, by the next commit's key or
// replay. Its own memo: repoState's holds a config without its remotes.
var commitSums sumMemo

// commitReads counts the files commitKey and replay have read, for this
// package's tests.
var commitReads atomic.Int64

// commitResult is the .git folder after the commit (every file, relative
// to .git), the sum of each of its entries' data, and the new commit id.
type commitResult struct {
	git  *Tree
	sums [][32]byte
	rev  string
}

func newCommitResult(git *Tree, rev string) *commitResult {
	r := &commitResult{git: git, rev: rev, sums: make([][32]byte, len(git.entries))}
	for i, e := range git.entries {
		r.sums[i] = sha256.Sum256(e.data)
	}
	return r
}

// commitKey names the state a commit starts from: the message, every file
// of the work tree and of .git (name, mode, content), .git/index as what
// it stages (names, modes, object ids; not the stat data git caches in
// it, which differ from one copy of a repository to the next). It reports
// false when the commit cannot be replayed from a copy: a repository with
// hooks (they could act outside .git), submodules, a .git that is not a
// folder, or an index it cannot read.
func commitKey(dir, msg string) (string, bool) {
	gitDir := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return "", false
	}
	if _, err := os.Lstat(filepath.Join(dir, ".gitmodules")); err == nil {
		return "", false
	}
	if hooks, _ := os.ReadDir(filepath.Join(gitDir, "hooks")); len(hooks) > 0 {
		return "", false
	}
	if cfg, err := os.ReadFile(filepath.Join(gitDir, "config")); err != nil || bytes.Contains(bytes.ToLower(cfg), []byte("hookspath")) {
		return "", false
	}
	clock, clockOK := fsClock()
	h := sha256.New()
	fmt.Fprintf(h, "commit %d:%s\n", len(msg), msg)
	ok := digestFolder(h, dir, nil, func(rel, p string, d fs.DirEntry) ([]byte, error) {
		switch {
		case rel == ".git/index":
			return indexKey(p)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			return []byte(target), err
		case d.Type().IsRegular():
			// A file by its content's sum (one a stamp proves is not
			// read again): a link's data is its target, and the mode
			// in the entry's line tells the two apart.
			sum, err := commitSums.sum(p, d, clock, clockOK, nil, &commitReads)
			return sum[:], err
		}
		return nil, errNoDigest
	})
	if !ok {
		return "", false
	}
	return string(h.Sum(nil)), true
}

// indexKey is what the index at p stages, without stat data.
func indexKey(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(f).Decode(&idx); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "v%d\n", idx.Version)
	for _, e := range idx.Entries {
		fmt.Fprintf(&b, "%d:%s %o %s %d %v %v\n", len(e.Name), e.Name, uint32(e.Mode), e.Hash, e.Stage, e.SkipWorktree, e.IntentToAdd)
	}
	return b.Bytes(), nil
}

// get returns the result kept for key, if any.
func (c *commitMemo) get(key string) *commitResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[key]
	if r != nil {
		c.hits++
	}
	return r
}

// put keeps r for key.
func (c *commitMemo) put(key string, r *commitResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*commitResult{}
	}
	c.m[key] = r
}

// replay makes dir's .git the kept result: the files the commit wrote or
// changed written, the ones it removed removed. The work tree is left
// alone, as git commit leaves it.
func (r *commitResult) replay(dir string) error {
	gitDir := filepath.Join(dir, ".git")
	keep := map[string]bool{}
	for _, e := range r.git.entries {
		keep[e.rel] = true
	}
	var stale []string
	err := filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == gitDir {
			return err
		}
		rel, err := filepath.Rel(gitDir, p)
		if err != nil {
			return err
		}
		if !keep[filepath.ToSlash(rel)] {
			stale = append(stale, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range stale {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	// Files are rewritten in place (os.WriteFile truncates), so the
	// result's modes are set again where they differ.
	var written []int
	for i, e := range r.git.entries {
		p := filepath.Join(gitDir, filepath.FromSlash(e.rel))
		switch {
		case e.mode.IsDir():
			err = os.MkdirAll(p, e.mode.Perm())
		case e.mode&fs.ModeSymlink != 0:
			_ = os.Remove(p)
			err = os.Symlink(string(e.data), p)
		default:
			if r.unchanged(i, p) {
				continue // unchanged by the commit (most objects)
			}
			_ = os.Remove(p) // objects are read-only
			if err = os.WriteFile(p, e.data, e.mode.Perm()); err == nil {
				written = append(written, i)
			}
		}
		if err != nil {
			return err
		}
	}
	// What was written is kept with its stamp, taken after the clock
	// is read (so a write after this one moves the ctime past it).
	clock, clockOK := fsClock()
	for _, i := range written {
		p := filepath.Join(gitDir, filepath.FromSlash(r.git.entries[i].rel))
		if info, err := os.Lstat(p); err == nil {
			commitSums.keep(p, info, clock, clockOK, r.sums[i])
		}
	}
	return nil
}

// unchanged reports whether the regular file at p already holds entry i's
// data: its stamp proves the sum kept for it (commitSums), or its bytes
// are the entry's.
func (r *commitResult) unchanged(i int, p string) bool {
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	if sum, ok := commitSums.get(p, fileid.Of(info)); ok {
		return sum == r.sums[i]
	}
	commitReads.Add(1)
	old, err := os.ReadFile(p)
	return err == nil && bytes.Equal(old, r.git.entries[i].data)
}
