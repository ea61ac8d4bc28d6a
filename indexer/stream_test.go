package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/lockwait"
	"github.com/gofrs/flock"
)

// searchPaths returns the paths of the hits of q.
func searchPaths(t *testing.T, dir, q string) []string {
	t.Helper()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(context.Background(), Query{Text: q, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Package+"/"+h.Path)
	}
	return out
}

// A first build streamed package by package publishes exactly what Sync
// would: a package that landed but is not in the final list (its install
// was undone) leaves no document behind, and a file changed after it
// landed is read again.
func TestStreamRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	writeFiles(t, dir, "undone", map[string]string{"gone.md": "# Gone\n\nThe word zeppelin is only here.\n"})
	s, err := StartSync(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index", metaFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("meta.json exists before Finish: %v", err)
	}
	s.Landed(Package{Alias: "guides"})
	s.Landed(Package{Alias: "undone"})
	s.Landed(Package{Alias: "ops"})
	// Changed after it landed (a later mtime and size: the stat data differ).
	p := filepath.Join(dir, "packages", "guides", "style", "go.md")
	if err := os.WriteFile(p, []byte("# Go style\n\nErrors wrap with the word quokka.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Finish(ctx, testPackages())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Rebuilt || rep.Added != 6 || rep.Removed != 0 || rep.Unchanged != 0 {
		t.Errorf("report = %+v, want a rebuild with 6 added", rep)
	}
	if got := searchPaths(t, dir, "zeppelin"); len(got) != 0 {
		t.Errorf("the undone package's document is searchable: %v", got)
	}
	if got := searchPaths(t, dir, "quokka"); len(got) != 1 || got[0] != "guides/style/go.md" {
		t.Errorf("search quokka = %v, want the changed file", got)
	}
	if got := searchPaths(t, dir, "keep packages small"); len(got) != 0 {
		t.Errorf("the file's old text is searchable: %v", got)
	}
	if got := searchPaths(t, dir, "flamingo"); len(got) != 1 {
		t.Errorf("search flamingo = %v, want ops/broken.md", got)
	}
	// The same as a plain Sync of the same files.
	rep2, err := Sync(ctx, dir, testPackages(), Options{Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Chunks != rep.Chunks || rep2.IndexTokens != rep.IndexTokens {
		t.Errorf("streamed: %d chunks, INDEX.md %d tokens; Sync: %d, %d", rep.Chunks, rep.IndexTokens, rep2.Chunks, rep2.IndexTokens)
	}
}

// A file changed after the Stream's worker has read its package is read
// again by Finish, in a rebuild and in an incremental sync: the worker's
// walk is not what Finish plans from. (TestStreamRebuild's edit may come
// before or after the worker's read; here it always comes after.)
func TestStreamChangedAfterRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, rebuild := range []bool{true, false} {
		dir := setupCorpus(t)
		if !rebuild {
			if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "packages", "guides", "style", "go.md")
			if err := os.WriteFile(p, []byte("# Go style\n\nErrors wrap with the word walrus.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		read := make(chan string, 8)
		s, err := StartSync(ctx, dir, Options{afterRead: func(alias string) { read <- alias }})
		if err != nil {
			t.Fatal(err)
		}
		s.Landed(Package{Alias: "guides"})
		if got := <-read; got != "guides" {
			t.Fatalf("the worker read %q; want guides", got)
		}
		p := filepath.Join(dir, "packages", "guides", "style", "go.md")
		if err := os.WriteFile(p, []byte("# Go style\n\nErrors wrap with the word quokka, said twice: quokka.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(2 * time.Hour)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Finish(ctx, testPackages()); err != nil {
			t.Fatal(err)
		}
		if got := searchPaths(t, dir, "quokka"); len(got) != 1 || got[0] != "guides/style/go.md" {
			t.Errorf("rebuild %v: search quokka = %v; want the file changed after the worker read it", rebuild, got)
		}
	}
}

// Abort publishes nothing and leaves no directory behind.
func TestStreamAbort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	s, err := StartSync(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Landed(Package{Alias: "guides"})
	s.Abort()
	s.Abort() // twice is harmless
	if _, err := s.Finish(ctx, testPackages()); err == nil {
		t.Error("Finish after Abort succeeded")
	}
	ents, err := os.ReadDir(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != lockFile {
			t.Errorf("index/%s left by an aborted stream", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "INDEX.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("INDEX.md written by an aborted stream: %v", err)
	}
	// The lock is free again.
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
}

// On an index that exists, the live directory is not touched until
// Finish; files parsed early are not parsed again unless they changed.
func TestStreamIncremental(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, "ops", map[string]string{"new.md": "# New\n\nThe word capybara is new.\n"})
	s, err := StartSync(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Landed(Package{Alias: "ops"})
	if got := searchPaths(t, dir, "capybara"); len(got) != 0 {
		t.Errorf("a landed file is visible before Finish: %v", got)
	}
	rep, err := s.Finish(ctx, testPackages())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rebuilt || rep.Added != 1 || rep.Updated != 0 {
		t.Errorf("report = %+v, want 1 added, no rebuild", rep)
	}
	if got := searchPaths(t, dir, "capybara"); len(got) != 1 || got[0] != "ops/new.md" {
		t.Errorf("search capybara = %v", got)
	}
}

// While another process writes the index, StartSync does not wait.
func TestStreamBusy(t *testing.T) {
	t.Parallel()
	dir := setupCorpus(t)
	if err := os.MkdirAll(filepath.Join(dir, "index"), 0o755); err != nil {
		t.Fatal(err)
	}
	l := flock.New(filepath.Join(dir, "index", lockFile))
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer l.Unlock()
	if _, err := StartSync(context.Background(), dir, Options{}); !errors.Is(err, ErrIndexBusy) || !strings.Contains(err.Error(), "index") {
		t.Errorf("StartSync = %v, want ErrIndexBusy", err)
	}
}

// Once every package has landed (AllLanded) and one changed, the worker
// opens the live directory for writing while the command commits (the
// .writing marker), and writes nothing into it nor marks meta.json dirty
// (a process killed there leaves an index the next Sync updates, not one
// it rebuilds): a reader still finds the old text after Abort, and the
// next Sync is incremental; Finish uses the writer opened early. Without
// AllLanded nothing is opened.
func TestStreamOpensEarly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, finish := range []bool{false, true} {
		dir := setupCorpus(t)
		if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, "ops", map[string]string{"new.md": "# New\n\nThe word capybara is new.\n"})
		read, opened := make(chan string, 8), make(chan bool, 8)
		s, err := StartSync(ctx, dir, Options{afterRead: func(alias string) { read <- alias }, afterOpen: func() { opened <- true }})
		if err != nil {
			t.Fatal(err)
		}
		s.Landed(Package{Alias: "ops"})
		<-read
		marker := filepath.Join(dir, "index", writingMarker)
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the index is open for writing before AllLanded: %v", err)
		}
		s.AllLanded()
		<-opened
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("AllLanded: no .writing marker: %v", err)
		}
		if m := (meta{}); readJSON(filepath.Join(dir, "index", metaFile), &m) != nil || m.Dirty {
			t.Fatal("AllLanded: meta.json marked dirty before anything is written: a process killed now would leave an index the next Sync rebuilds")
		}
		early := s.w
		if !finish {
			s.Abort()
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Abort left the .writing marker: %v", err)
			}
			var m meta
			if err := readJSON(filepath.Join(dir, "index", metaFile), &m); err != nil || m.Dirty {
				t.Errorf("after Abort meta.json is dirty (%v): the next Sync would rebuild", err)
			}
			if got := searchPaths(t, dir, "capybara"); len(got) != 0 {
				t.Errorf("after Abort the landed file is searchable: %v", got)
			}
			rep, err := Sync(ctx, dir, testPackages(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rebuilt || rep.Added != 1 {
				t.Errorf("the Sync after Abort: %+v, want 1 added, no rebuild", rep)
			}
		} else {
			rep, err := s.Finish(ctx, testPackages())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rebuilt || rep.Added != 1 || rep.Updated != 0 {
				t.Errorf("report = %+v, want 1 added, no rebuild", rep)
			}
			if early == nil || s.w != early {
				t.Error("Finish did not use the writer opened early")
			}
			var m meta
			if err := readJSON(filepath.Join(dir, "index", metaFile), &m); err != nil || m.Dirty {
				t.Errorf("after Finish meta.json is dirty (%v)", err)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Finish left the .writing marker: %v", err)
			}
		}
		if got := searchPaths(t, dir, "capybara"); len(got) != 1 || got[0] != "ops/new.md" {
			t.Errorf("finish %v: search capybara = %v", finish, got)
		}
	}
}

// Expect has the worker read the parts of packages before they land; a
// part that cannot be read is met by Finish as before (a rebuild, noted),
// and an alias the catalogue does not know is harmless.
func TestStreamExpect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, corrupt := range []bool{false, true} {
		dir := setupCorpus(t)
		if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
			t.Fatal(err)
		}
		if corrupt {
			cat, err := readCatalog(filepath.Join(dir, "index"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "index", catalogDir, cat.Parts["ops"].File), []byte("{not json"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writeFiles(t, dir, "ops", map[string]string{"new.md": "# New\n\nThe word capybara is new.\n"})
		var notes []string
		s, err := StartSync(ctx, dir, Options{Warn: func(m string) { notes = append(notes, m) }})
		if err != nil {
			t.Fatal(err)
		}
		s.Expect("ops", "nosuch")
		s.Landed(Package{Alias: "ops"})
		s.AllLanded()
		rep, err := s.Finish(ctx, testPackages())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Rebuilt != corrupt || (!corrupt && rep.Added != 1) {
			t.Errorf("corrupt part %v: report %+v", corrupt, rep)
		}
		if corrupt && !strings.Contains(strings.Join(notes, "\n"), "rebuilding the index") {
			t.Errorf("corrupt part: notes %q, want the rebuild noted", notes)
		}
		if got := searchPaths(t, dir, "capybara"); len(got) != 1 || got[0] != "ops/new.md" {
			t.Errorf("corrupt part %v: search capybara = %v", corrupt, got)
		}
	}
}

// A reader that holds bolt's lock when the worker opens the live directory
// early costs the early open earlyBoltTimeout, not the writer's wait: it
// gives up (no writer, no .writing marker left), and Finish opens the
// directory as Sync does once the lock is free. The test's writer waits an
// hour (Options.writerBolt), so an early open that waited as long as the
// writer does would hang here, with the lock held until it returns.
func TestStreamEarlyOpenFallsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, bolt := readerHoldsBolt(t)
	defer bolt.Unlock()
	read, opened := make(chan string, 8), make(chan bool, 8)
	s, err := StartSync(ctx, dir, Options{writerBolt: time.Hour, afterRead: func(alias string) { read <- alias }, afterOpen: func() { opened <- true }})
	if err != nil {
		t.Fatal(err)
	}
	s.Landed(Package{Alias: "ops"})
	<-read
	s.AllLanded()
	<-opened
	if s.w != nil {
		t.Fatal("the early open succeeded while a reader held bolt")
	}
	if _, err := os.Stat(filepath.Join(dir, "index", writingMarker)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed early open left the .writing marker: %v", err)
	}
	if err := bolt.Unlock(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Finish(ctx, testPackages())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rebuilt || rep.Added != 1 {
		t.Errorf("report = %+v, want 1 added, no rebuild", rep)
	}
	if got := searchPaths(t, dir, "capybara"); len(got) != 1 || got[0] != "ops/new.md" {
		t.Errorf("search capybara = %v", got)
	}
}

// An early open that failed is not tried again: AllLanded while the
// worker still reads the last package (an update's usual order) leaves a
// wake in the channel, and before earlyTried the worker took it as a
// reason to open again, so readers met the .writing marker twice before
// Finish's own open.
func TestStreamEarlyOpenOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, bolt := readerHoldsBolt(t)
	defer bolt.Unlock()
	reading, gate := make(chan bool), make(chan bool)
	opened := make(chan bool, 8)
	s, err := StartSync(ctx, dir, Options{writerBolt: time.Hour,
		afterRead: func(string) { reading <- true; <-gate },
		afterOpen: func() { opened <- true }})
	if err != nil {
		t.Fatal(err)
	}
	s.Landed(Package{Alias: "ops"})
	<-reading
	s.AllLanded() // the worker is still in ops: a wake waits for it
	close(gate)
	<-opened // the first early open gave up (the reader holds bolt)
	if err := bolt.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(ctx, testPackages()); err != nil {
		t.Fatal(err)
	}
	if n := 1 + len(opened); n != 1 {
		t.Errorf("the early open was tried %d times, want once", n)
	}
}

// A landing that made a folder a symbolic link (to outside the package)
// touched the folder and the documents that were in it: the worker reads
// none of them through the link (what this test checks: s.pre), and the
// index holds nothing from outside (Finish's walk, which follows no link,
// sees to that either way).
func TestStreamLandedFilesNotThroughLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "go.md"), []byte("# Outside\n\nThe word zeppelin is outside.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	style := filepath.Join(dir, "packages", "guides", "style")
	if err := os.RemoveAll(style); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, style); err != nil {
		t.Fatal(err)
	}
	read := make(chan string, 8)
	s, err := StartSync(ctx, dir, Options{afterRead: func(a string) { read <- a }})
	if err != nil {
		t.Fatal(err)
	}
	s.LandedFiles(Package{Alias: "guides"}, []string{"style/go.md", "style"})
	<-read
	if len(s.pre) != 0 {
		t.Errorf("read early through the link: %d files", len(s.pre))
	}
	if _, err := s.Finish(ctx, testPackages()); err != nil {
		t.Fatal(err)
	}
	if got := searchPaths(t, dir, "zeppelin"); len(got) != 0 {
		t.Errorf("search zeppelin = %v; want nothing from outside the package", got)
	}
}

// TestStreamLandedFiles: a package that landed with the files its landing
// touched (a patch's) is not walked, by the worker nor by Finish: they
// read the touched documents alone (a file touched and changed after the
// worker read is in TestStreamChangedAfterRead). A document changed
// otherwise (here before the landing) keeps the stat data the catalogue
// recorded when it was last read, so the next freshness check finds the
// package stale and the next Sync reads it (the window issue 31's lead
// accepted: Stream.carriedWalk). A landing that touched no document
// leaves the worker nothing to read and nothing to open early.
func TestStreamLandedFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Hour)
	for rel, body := range map[string]string{
		"style/go.md": "# Go style\n\nErrors wrap with the word walrus.\n",
		"deploy.md":   "# Deploying\n\nEvery rollout waits for the quokka.\n",
	} {
		p := filepath.Join(dir, "packages", "guides", filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	read := make(chan string, 8)
	s, err := StartSync(ctx, dir, Options{afterRead: func(alias string) { read <- alias }})
	if err != nil {
		t.Fatal(err)
	}
	s.LandedFiles(Package{Alias: "guides"}, []string{"notes.html", "style/go.md", "gone.md"})
	s.LandedFiles(Package{Alias: "ops"}, []string{"pager.png"})
	for range 2 {
		<-read
	}
	var early []string
	for k := range s.pre {
		early = append(early, k)
	}
	if len(early) != 1 || early[0] != preKey("guides", "style/go.md") {
		t.Errorf("read early: %q; want guides' style/go.md alone (the package not walked)", early)
	}
	rep, err := s.Finish(ctx, testPackages())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Updated != 1 || rep.Added != 0 {
		t.Errorf("Finish: %+v; want style/go.md updated, deploy.md not read", rep)
	}
	if got := searchPaths(t, dir, "walrus"); len(got) != 1 || got[0] != "guides/style/go.md" {
		t.Errorf("search walrus = %v; want guides/style/go.md", got)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Freshness(testPackages())
	r.Close()
	if err != nil || !slices.Equal(f.Stale, []string{"guides"}) {
		t.Errorf("freshness after Finish: %+v %v; want guides stale (deploy.md changed since it was read)", f, err)
	}
	if rep, err := Sync(ctx, dir, testPackages(), Options{}); err != nil || rep.Updated != 1 {
		t.Errorf("Sync after: %+v %v; want deploy.md read", rep, err)
	}
	if got := searchPaths(t, dir, "quokka"); len(got) != 1 || got[0] != "guides/deploy.md" {
		t.Errorf("search quokka = %v; want guides/deploy.md", got)
	}

	// Only a file that is not a document touched: nothing read early, and
	// the index is not opened before Finish.
	s, err = StartSync(ctx, dir, Options{afterRead: func(alias string) { read <- alias }})
	if err != nil {
		t.Fatal(err)
	}
	s.LandedFiles(Package{Alias: "guides"}, []string{"notes.html"})
	<-read
	if len(s.pre) != 0 || s.changed {
		t.Errorf("a landing that touched no document: read early %d, changed %v; want none", len(s.pre), s.changed)
	}
	rep, err = s.Finish(ctx, testPackages())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added+rep.Updated+rep.Removed != 0 {
		t.Errorf("nothing changed, Finish: %+v", rep)
	}
}

// readerHoldsBolt builds and indexes the test corpus, takes a reader's
// lock on the index's bolt (shared, as a read-only open takes it), and
// adds ops/new.md (the word capybara) for an update to index.
func readerHoldsBolt(t *testing.T) (string, *flock.Flock) {
	t.Helper()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := readJSON(filepath.Join(dir, "index", metaFile), &m); err != nil {
		t.Fatal(err)
	}
	bolt := flock.New(filepath.Join(dir, "index", m.Bleve, "store", "root.bolt"))
	if ok, err := lockwait.Shared(ctx, bolt, 0); !ok || err != nil {
		t.Fatalf("take root.bolt shared: %v %v", ok, err)
	}
	writeFiles(t, dir, "ops", map[string]string{"new.md": "# New\n\nThe word capybara is new.\n"})
	return dir, bolt
}

// TestStreamCarriedWalkEdges: the landings Finish does not take a package's
// walk from the catalogue for (Stream.carriedWalk), and what it takes when
// it does: a touched kep.yaml walks the folder (the README beside it is
// read again, its side file's stamp moved); a touched document in a hidden folder
// is not indexed, as the walk would not list it; a touched README.md is
// stamped with the kep.yaml beside it, so the index is fresh after.
func TestStreamCarriedWalkEdges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "k", map[string]string{
		"keps/1/README.md": "# KEP 1\n\nThe first one.\n",
		"keps/1/kep.yaml":  "title: Walrus proposal\n",
		"keps/2/README.md": "# KEP 2\n\nThe second one.\n",
		"keps/2/kep.yaml":  "title: Second\n",
		"other.md":         "# Other\n\nText.\n",
	})
	pkgs := []Package{{Alias: "k", Rev: strings.Repeat("1", 40)}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	land := func(touched []string, files map[string]string) *SyncReport {
		t.Helper()
		writeFiles(t, dir, "k", files)
		s, err := StartSync(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.LandedFiles(Package{Alias: "k"}, touched)
		rep, err := s.Finish(ctx, pkgs)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	fresh := func(when string) {
		t.Helper()
		r, err := OpenReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
			t.Errorf("%s: freshness %+v %v, want fresh", when, f, err)
		}
	}
	if rep := land([]string{"keps/1/kep.yaml"}, map[string]string{"keps/1/kep.yaml": "title: Narwhal proposal, revised\n"}); rep.Updated != 2 {
		t.Errorf("kep.yaml touched: %+v, want it and its README read again", rep)
	}
	fresh("kep.yaml touched")
	if rep := land([]string{".drafts/x.md"}, map[string]string{".drafts/x.md": "# Draft\n\nThe word okapi.\n"}); rep.Added != 0 {
		t.Errorf("hidden document touched: %+v, want nothing added", rep)
	}
	fresh("hidden document touched")
	if rep := land([]string{"keps/2/README.md"}, map[string]string{"keps/2/README.md": "# KEP 2\n\nThe second one, with a quokka.\n"}); rep.Updated != 1 {
		t.Errorf("README touched: %+v, want it read", rep)
	}
	fresh("README touched")
}

// TestStreamCarriedWalkCaseFold: a landing whose touched paths, or a
// touched path and a catalogued document, are one file on macOS and
// Windows (naming.FileKey: they differ only in case or Unicode form; a
// rename of Guide.md to guide.md there) is walked by Finish, not carried:
// a stat of the old name finds the new file on such a system, and the
// carried walk would index both names.
func TestStreamCarriedWalkCaseFold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "k", map[string]string{"Guide.md": "# Guide\n\nOld.\n", "other.md": "# Other\n\nText.\n"})
	pkgs := []Package{{Alias: "k", Rev: strings.Repeat("1", 40)}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		touched []string
		carried bool
	}{
		{[]string{"other.md"}, true},
		{[]string{"Guide.md", "guide.md"}, false}, // a rename in case
		{[]string{"guide.md"}, false},             // the catalogued Guide.md, not touched
		{[]string{"Caf\u00e9.md", "Cafe\u0301.md"}, false},
	} {
		s, err := StartSync(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.LandedFiles(Package{Alias: "k"}, c.touched)
		if _, err := s.drain(); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.carriedWalk(withDirs(dir, pkgs)[0]); ok != c.carried {
			t.Errorf("touched %q: carried %v; want %v", c.touched, ok, c.carried)
		}
		s.dropWriter()
		s.lock.Unlock()
		s.cancel()
	}
}
