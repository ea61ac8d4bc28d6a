package indexer

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestProcessFileReadIsBounded (red21 F5): processFile read the whole
// file after the walk's stat said it was small enough, so a file that grew
// since (a sparse file of gigabytes, or a link to one put where the walk
// saw a regular file) was read whole into memory, and a fifo swapped in
// blocked the index for ever. It reads at most maxFileSize bytes of a
// regular file, never following a link, and skips the file with a
// warning.
func TestProcessFileReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const grown = 256 << 20 // sparse: no disk used
	if err := f.Truncate(grown); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Symlink(big, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"big.md", "link.md"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		// The walk saw 10 bytes; the file holds 256 MB now.
		_, docs, _, _, err := processFile("p", "p", name, filepath.Join(dir, name), 10, 1, nil, nil, "", nil)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 3*maxFileSize {
			t.Errorf("%s: processFile allocated %d MB for a file the walk saw at 10 bytes", name, got>>20)
		}
		if err == nil || len(docs) != 0 {
			t.Errorf("%s: err %v, %d chunks; want an error and nothing indexed", name, err, len(docs))
			continue
		}
		if strings.Contains(err.Error(), dir) {
			t.Errorf("%s: the warning names the machine's path: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

// TestOwnProofFollowsGitIndex (rv-red21): the proof holds only while
// git's index is as the check found it: a `git add` (or a pull, which is
// how a commit of the bleve folders alone arrives) rewrites it, and the
// next Reader reads git's index again; its check, passed, records the
// new pair, so the search after it need not.
func TestOwnProofFollowsGitIndex(t *testing.T) {
	if !gittest.Available() {
		t.Skip("no git")
	}
	dir := setupCorpus(t)
	root := filepath.Dir(dir)
	gittest.MustGit(t, root, "init", "-q", "-b", "main")
	gittest.WriteFiles(t, root, map[string]string{"README.md": "# r\n"})
	gittest.MustGit(t, root, "add", "README.md")
	if _, err := Sync(context.Background(), dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	indexDir := filepath.Join(dir, "index")
	proven := func() bool {
		fi, err := os.Stat(filepath.Join(indexDir, metaFile))
		if err != nil {
			t.Fatal(err)
		}
		g, ok := gitIndexStamp(dir)
		return provenOwn(indexDir, fi, g, ok)
	}
	if !proven() {
		t.Skip("nothing proven on this system (no ctime)")
	}
	gittest.WriteFiles(t, root, map[string]string{"b.txt": "b\n"})
	gittest.MustGit(t, root, "add", "b.txt")
	if proven() {
		t.Fatal("proven after git's index changed")
	}
	// A proof recorded in the same tick of the file system's clock as
	// git's write proves nothing (fileid.Proves): let the clock pass it,
	// as it has by the time a user searches after a `git add`.
	g, _ := gitIndexStamp(dir)
	p := filepath.Join(t.TempDir(), "tick")
	for i := 0; ; i++ {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(p); err != nil || fi.ModTime().UnixNano() > g.CTime || i > 1e6 {
			break
		}
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Search(context.Background(), Query{Text: "rollback"}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if !proven() {
		b, _ := os.ReadFile(filepath.Join(indexDir, ownFile))
		g, ok := gitIndexStamp(dir)
		fi, _ := os.Stat(filepath.Join(indexDir, metaFile))
		t.Errorf("a Reader's passed check did not record the proof: %s; git %v %v; meta %v", b, g, ok, fileid.Of(fi))
	}
}
