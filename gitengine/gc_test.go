package gitengine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gcNow is the time the gc tests collect at; the cache's files and uses
// are dated relative to it.
var gcNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// ageFiles dates every file under dir at t.
func ageFiles(t *testing.T, dir string, at time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setUses dates the recorded uses of each commit in the store dir.
func setUses(t *testing.T, dir string, when map[string]time.Time) {
	t.Helper()
	u, err := readUses(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range u.Used {
		if at, ok := when[u.Used[i].Commit]; ok {
			u.Used[i].Time = at
		}
	}
	if err := writeUses(dir, u); err != nil {
		t.Fatal(err)
	}
}

// storeDir is the one remote store under the cache root.
func storeDir(t *testing.T, o Options) string {
	t.Helper()
	keys, err := remoteKeys(o.CacheDir)
	if err != nil || len(keys) != 1 {
		t.Fatalf("remote stores %v, %v; want one", keys, err)
	}
	return filepath.Join(o.CacheDir, keys[0])
}

// blobAt is the blob id of file p at commit c in the fixture's source.
func (f *fixture) blobAt(c, p string) plumbing.Hash {
	f.t.Helper()
	return plumbing.NewHash(f.objectAt(c, p))
}

func has(dir string, h plumbing.Hash) bool {
	return newStorage(osfs.New(dir), false).HasEncodedObject(h) == nil
}

// fsck checks every pack of the store with git verify-pack.
func fsck(t *testing.T, dir string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.idx"))
	for _, p := range packs {
		if out, err := gittest.Git(dir, "verify-pack", p); err != nil {
			t.Errorf("git verify-pack %s: %v\n%s", filepath.Base(p), err, out)
		}
	}
}

// TestGCKeepRule: gc keeps the commits used within the keep period with
// all their trees and the blobs under their recorded paths, and drops the
// rest once its packs are older than the keep period; an install of a kept
// commit afterwards needs no request.
func TestGCKeepRule(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	ctx := context.Background()
	e := New(o)
	tmp := t.TempDir()
	for i, c := range []string{f.c1, f.c2} {
		if _, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: c, Path: "docs/guides/deep"}, filepath.Join(tmp, string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	dir := storeDir(t, o)
	oldA, newA := f.blobAt(f.c1, "docs/guides/deep/a.md"), f.blobAt(f.c2, "docs/guides/deep/a.md")
	shared := f.blobAt(f.c2, "docs/guides/deep/sub/b.md")
	if !has(dir, oldA) || !has(dir, newA) || !has(dir, plumbing.NewHash(f.c1)) {
		t.Fatal("the fetches did not fill the cache")
	}

	// Packs written within the keep period stay whatever the uses say.
	setUses(t, dir, map[string]time.Time{f.c1: gcNow.Add(-40 * day), f.c2: gcNow.Add(-40 * day)})
	ageFiles(t, filepath.Join(dir, "objects"), gcNow.Add(-1*day))
	res, err := e.GC(ctx, GCOptions{Keep: DefaultKeep, Now: gcNow, DryRun: true})
	if err != nil || len(res) != 1 {
		t.Fatalf("GC: %v, %+v", err, res)
	}
	if res[0].Dropped != 0 {
		t.Fatalf("gc would drop objects of packs written within the keep period: %+v", res[0])
	}

	// c1 used 20 days ago, c2 yesterday; every object 30 days old.
	setUses(t, dir, map[string]time.Time{f.c1: gcNow.Add(-20 * day), f.c2: gcNow.Add(-1 * day)})
	ageFiles(t, filepath.Join(dir, "objects"), gcNow.Add(-30*day))

	// A keep period of 30 days keeps both; a dry run of 14 days changes nothing.
	if res, err = e.GC(ctx, GCOptions{Keep: 30 * day, Now: gcNow}); err != nil || res[0].Dropped != 0 || res[0].Commits != 2 {
		t.Fatalf("GC keep 30d: %v, %+v; want nothing dropped, 2 commits kept", err, res)
	}
	if !has(dir, oldA) || !has(dir, plumbing.NewHash(f.c1)) {
		t.Fatal("keep 30d dropped c1's objects")
	}
	ageFiles(t, filepath.Join(dir, "objects"), gcNow.Add(-30*day)) // the repack wrote a new pack
	before := snapshot(t, dir)
	dry, err := e.GC(ctx, GCOptions{Keep: DefaultKeep, Now: gcNow, DryRun: true})
	if err != nil || dry[0].Dropped == 0 || dry[0].BytesAfter >= dry[0].BytesBefore {
		t.Fatalf("dry run: %v, %+v; want objects to drop", err, dry)
	}
	if after := snapshot(t, dir); after != before {
		t.Fatalf("the dry run changed the store:\n%s\nthen\n%s", before, after)
	}

	// 14 days: c1 goes, c2 and what it shares with c1 stay.
	res, err = e.GC(ctx, GCOptions{Keep: DefaultKeep, Now: gcNow})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Dropped != dry[0].Dropped || res[0].Commits != 1 {
		t.Errorf("dropped %d (dry run said %d), kept %d commits; want the same, 1", res[0].Dropped, dry[0].Dropped, res[0].Commits)
	}
	if has(dir, plumbing.NewHash(f.c1)) || has(dir, oldA) {
		t.Error("c1 and its old a.md survived a keep period it was not used in")
	}
	if !has(dir, plumbing.NewHash(f.c2)) || !has(dir, newA) || !has(dir, shared) {
		t.Error("gc dropped objects of c2, used yesterday")
	}
	// All of c2's trees stay (an update offers c2 as a have).
	st := newStorage(osfs.New(dir), false)
	co, err := object.GetCommit(st, plumbing.NewHash(f.c2))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := co.Tree()
	if err != nil {
		t.Fatal(err)
	}
	walker := object.NewTreeWalker(tree, true, nil)
	for {
		_, en, err := walker.Next()
		if err != nil {
			break
		}
		if en.Mode.IsFile() {
			continue
		}
		if !has(dir, en.Hash) {
			t.Errorf("tree %s of c2 was dropped", en.Hash)
		}
	}
	walker.Close()
	if n := len(looseObjects(t, dir)); n != 0 {
		t.Errorf("%d loose objects left after gc", n)
	}
	fsck(t, dir)
	u, _ := readUses(dir)
	if len(u.Used) != 1 || u.Used[0].Commit != f.c2 {
		t.Errorf("uses after gc: %+v; want only c2's", u.Used)
	}

	// c2 installs from the cache alone.
	s.ResetCounters()
	if _, err := New(o).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, filepath.Join(tmp, "again")); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("installing the kept commit made %d requests; want 0", n)
	}
	// c1 comes back from the server.
	if _, err := New(o).Materialize(ctx, FetchRequest{URL: url, Commit: f.c1, Path: "docs/guides/deep"}, filepath.Join(tmp, "c1")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(tmp, "c1", "a.md")); err != nil || string(b) != "# A\n\nalpha\n" {
		t.Errorf("c1's a.md after gc and a new fetch: %q, %v", b, err)
	}
}

// snapshot lists dir's files with sizes and times.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + fi.ModTime().String() + " " + string(rune('0'+fi.Size()%10)) + "\n")
		return nil
	})
	return b.String()
}

func looseObjects(t *testing.T, dir string) []plumbing.Hash {
	t.Helper()
	var out []plumbing.Hash
	if err := newStorage(osfs.New(dir), false).ForEachObjectHash(func(h plumbing.Hash) error { out = append(out, h); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGCSkipsARemoteInUse: a remote being read (after a fetch, while its
// files are written) is skipped, and collected once the reader is done.
func TestGCSkipsARemoteInUse(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	url := f.serve(gittest.ServeOptions{}).URL + "/repo.git"
	ctx := context.Background()
	e := New(o)
	g, err := e.gather(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs"}, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.GC(ctx, GCOptions{Keep: 0, Now: gcNow.Add(365 * day)})
	if err != nil || len(res) != 1 || res[0].Skipped == "" {
		t.Fatalf("GC while a reader holds the store: %v, %+v; want it skipped", err, res)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(100 * time.Millisecond)
		g.close()
	}()
	res, err = e.GC(ctx, GCOptions{Keep: 0, Now: gcNow.Add(365 * day), Wait: time.Minute})
	wg.Wait()
	if err != nil || res[0].Skipped != "" || res[0].Dropped == 0 {
		t.Fatalf("GC after the reader let go: %v, %+v; want everything dropped", err, res)
	}
	if has(storeDir(t, o), plumbing.NewHash(f.c2)) {
		t.Error("keep 0, a year later: the commit survived")
	}
}

// TestCacheInfo: one line per remote, by URL with its credentials
// redacted, with the sizes and counts and the last use.
func TestCacheInfo(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := strings.Replace(s.URL, "://", "://alice:s3cret@", 1) + "/repo.git"
	ctx := context.Background()
	e := New(o)
	if got, err := e.CacheInfo(ctx); err != nil || len(got) != 0 {
		t.Fatalf("empty cache: %+v, %v", got, err)
	}
	start := time.Now().Add(-time.Second)
	if _, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs"}, filepath.Join(t.TempDir(), "p")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(o.CacheDir, "https", "blobs"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := e.CacheInfo(ctx)
	if err != nil || len(got) != 1 {
		t.Fatalf("CacheInfo: %+v, %v; want one remote (the https folder is not one)", got, err)
	}
	r := got[0]
	if strings.Contains(r.URL, "s3cret") || !strings.Contains(r.URL, "***@") || !strings.HasSuffix(r.URL, "/repo.git") {
		t.Errorf("URL %q: want the remote with its credentials redacted", r.URL)
	}
	if r.Bytes <= 0 || r.Packs == 0 || r.PackedObjects == 0 || r.Commits != 1 || r.LastUsed.Before(start) {
		t.Errorf("info %+v: want bytes, packs, objects, 1 commit, used just now", r)
	}
}

// TestTrimCacheLRU: over CacheMax, the least recently used remote is
// collected first, and trimming stops once the cache fits; when nothing
// more can go, it warns.
func TestTrimCacheLRU(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	for _, n := range []string{"b.git", "c.git"} {
		gittest.MustGit(t, f.root, "clone", "-q", "--bare", f.bare, filepath.Join(f.root, n))
	}
	s := f.serve(gittest.ServeOptions{})
	ctx := context.Background()
	e := New(o)
	keyOf := map[string]string{}
	for _, n := range []string{"repo.git", "b.git", "c.git"} {
		before, _ := remoteKeys(o.CacheDir)
		if _, err := e.Materialize(ctx, FetchRequest{URL: s.URL + "/" + n, Commit: f.c2, Path: "docs"}, filepath.Join(t.TempDir(), "p")); err != nil {
			t.Fatal(err)
		}
		after, _ := remoteKeys(o.CacheDir)
		for _, k := range after {
			if !strings.Contains(strings.Join(before, " "), k) {
				keyOf[n] = k
			}
		}
	}
	// Used: c.git 30 days ago, repo.git 20 days ago, b.git yesterday;
	// every file 40 days old.
	now := time.Now()
	for n, ago := range map[string]time.Duration{"c.git": 30 * day, "repo.git": 20 * day, "b.git": 1 * day} {
		dir := filepath.Join(o.CacheDir, keyOf[n])
		setUses(t, dir, map[string]time.Time{f.c2: now.Add(-ago)})
		ageFiles(t, dir, now.Add(-40*day))
	}
	info, err := e.CacheInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var total, oldest int64
	for _, r := range info {
		total += r.Bytes
		if r.Key == keyOf["c.git"] {
			oldest = r.Bytes
		}
	}

	// Collecting c.git is enough.
	o.CacheMax = total - oldest/2
	res, err := New(o).TrimCache(ctx)
	if err != nil || len(res) != 1 || res[0].Key != keyOf["c.git"] || res[0].Dropped == 0 {
		t.Fatalf("TrimCache to %d of %d: %v, %+v; want c.git (least recently used) collected, alone", o.CacheMax, total, err, res)
	}

	// Nothing fits 1 byte: repo.git next (c.git has nothing left), then
	// b.git, whose objects stay (used yesterday), and a warning.
	o.CacheMax = 1
	var warned []string
	o.Warn = func(_, msg string) { warned = append(warned, msg) }
	res, err = New(o).TrimCache(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range res {
		order = append(order, r.Key)
	}
	want := []string{keyOf["c.git"], keyOf["repo.git"], keyOf["b.git"]}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want least recently used first %v", order, want)
	}
	if !has(filepath.Join(o.CacheDir, keyOf["b.git"]), plumbing.NewHash(f.c2)) {
		t.Error("b.git's commit, used yesterday, was dropped to fit the limit")
	}
	if has(filepath.Join(o.CacheDir, keyOf["repo.git"]), plumbing.NewHash(f.c2)) {
		t.Error("repo.git's commit, used 20 days ago, survived")
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "CTX_CACHE_MAX") {
		t.Errorf("warnings %q; want one naming CTX_CACHE_MAX", warned)
	}

	// Under the limit: nothing to do.
	o.CacheMax = 1 << 40
	if res, err := New(o).TrimCache(ctx); err != nil || len(res) != 0 {
		t.Errorf("TrimCache under the limit: %+v, %v", res, err)
	}
}

// TestNoteUse: noting a use of a cached commit (a package already
// installed) moves its last use to now; a commit the cache lacks, or a
// remote it has no store for, is not noted.
func TestNoteUse(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	url := f.serve(gittest.ServeOptions{}).URL + "/repo.git"
	ctx := context.Background()
	e := New(o)
	if err := e.NoteUse(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs"}); err != nil {
		t.Fatal(err)
	}
	if keys, _ := remoteKeys(o.CacheDir); len(keys) != 0 {
		t.Fatalf("NoteUse made a store: %v", keys)
	}
	if _, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs"}, filepath.Join(t.TempDir(), "p")); err != nil {
		t.Fatal(err)
	}
	dir := storeDir(t, o)
	setUses(t, dir, map[string]time.Time{f.c2: gcNow.Add(-100 * day)})
	start := time.Now().Add(-time.Second)
	for _, c := range []string{f.c2, f.c1} {
		if err := e.NoteUse(ctx, FetchRequest{URL: url, Commit: c, Path: "docs"}); err != nil {
			t.Fatal(err)
		}
	}
	u, err := readUses(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Used) != 1 || u.Used[0].Commit != f.c2 || u.Used[0].Time.Before(start) {
		t.Errorf("uses %+v; want c2's, noted just now, and not c1 (not in the cache)", u.Used)
	}
}

// TestGCRepacksLargeObjects: an object over largeObject goes through the
// repack (without deltas, streamed) and comes out whole.
func TestGCRepacksLargeObjects(t *testing.T) {
	t.Parallel()
	needGit(t)
	o, _ := isolate(t)
	tmp := t.TempDir()
	src, root := filepath.Join(tmp, "src"), filepath.Join(tmp, "root")
	big := strings.Repeat("a line of a file over the large-object threshold\n", 3*largeObject/49)
	commit := gittest.NewRepo(t, src, map[string]string{"docs/a.md": "# A\n", "docs/big.txt": big})
	gittest.MustGit(t, tmp, "clone", "-q", "--bare", src, filepath.Join(root, "repo.git"))
	s, err := gittest.Serve(root, gittest.ServeOptions{Memo: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	url := s.URL + "/repo.git"
	if _, err := New(o).Materialize(ctx, FetchRequest{URL: url, Commit: commit, Path: "docs"}, filepath.Join(tmp, "p1")); err != nil {
		t.Fatal(err)
	}
	dir := storeDir(t, o)
	setUses(t, dir, map[string]time.Time{commit: gcNow.Add(-1 * day)})
	ageFiles(t, filepath.Join(dir, "objects"), gcNow.Add(-30*day))
	// Two old packs (trees, blobs): gc writes them into new ones.
	res, err := New(o).GC(ctx, GCOptions{Keep: DefaultKeep, Now: gcNow})
	if err != nil || res[0].Dropped != 0 || res[0].PacksBefore < 2 {
		t.Fatalf("GC: %v, %+v; want packs rewritten, nothing dropped", err, res)
	}
	fsck(t, dir)
	s.ResetCounters()
	if _, err := New(o).Materialize(ctx, FetchRequest{URL: url, Commit: commit, Path: "docs"}, filepath.Join(tmp, "p2")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(tmp, "p2", "big.txt")); err != nil || string(b) != big {
		t.Errorf("the large file after the repack: %d bytes, %v; want %d bytes, the same", len(b), err, len(big))
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("%d requests after the repack; want 0", n)
	}
}
