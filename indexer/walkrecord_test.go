package indexer

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer/prewalk"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/project"
)

// pastClock returns once the file system's clock (the ctime a new file in
// dir gets) is past every ctime under roots: from then on, a change to a
// folder or file under them gives it a stamp it never had, so a test of
// the walk record does not depend on when in a clock tick it ran.
func pastClock(t *testing.T, dir string, roots ...string) {
	t.Helper()
	var last int64
	for _, root := range roots {
		err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			last = max(last, fileid.Of(fi).CTime)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if last == 0 {
		t.Skip("no ctimes on this system: the walk record is never trusted")
	}
	probe := filepath.Join(dir, "clock-probe")
	for i := 0; ; i++ {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(probe)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(probe)
		if fileid.Of(fi).CTime > last {
			return
		}
		if i > 1e7 {
			t.Fatal("the file system's clock does not move")
		}
	}
}

// recordProject is a project with a dir source inside it (docs/, under a
// project .gitignore), a locked package with a README.md and its kep.yaml,
// and their index built.
func recordProject(t *testing.T) (root, ctxDir string, pkgs []Package) {
	t.Helper()
	root = t.TempDir()
	ctxDir = filepath.Join(root, ".context")
	for name, body := range map[string]string{
		".gitignore":                      "/build/\n",
		"docs/guide.md":                   "# Guide\n\nThe zanzibar procedure.\n",
		"docs/sub/deep.md":                "# Deep\n\nNested quokka notes.\n",
		"docs/sub/skipped.md":             "# Skipped\n\nAn ignored ocelot.\n",
		"docs/sub/.gitignore":             "skipped.md\n",
		"docs/img/logo.txt.png":           "not a document",
		".context/packages/lib/README.md": "# Lib\n\nPangolins.\n",
		".context/packages/lib/kep.yaml":  "title: Lib\n",
		".context/packages/lib/a/b/c.md":  "# C\n\nA deep page.\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs = []Package{
		{Alias: "docs", Kind: project.KindDir, Source: "./docs", Dir: filepath.Join(root, "docs"), Project: root},
		{Alias: "lib", Kind: project.KindGit, Source: "https://git.example/lib.git", Rev: strings.Repeat("1", 40)},
	}
	if _, err := Sync(context.Background(), ctxDir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	return root, ctxDir, pkgs
}

// recordReader opens ctxDir with a settled clock (pastClock) and checks
// that its first Freshness walks both packages in full and finds them
// fresh, and the second stats them from the walk record alone.
func recordReader(t *testing.T, root, ctxDir string, pkgs []Package) *Reader {
	t.Helper()
	pastClock(t, t.TempDir(), root)
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	r.walkSettle = 0
	for round, want := range [][2]int64{{0, 2}, {2, 2}} {
		if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
			t.Fatalf("check %d: Freshness = %+v, %v; want fresh", round+1, f, err)
		}
		if got := [2]int64{r.walks[0].Load(), r.walks[1].Load()}; got != want {
			t.Fatalf("check %d: packages from the record, walked = %v, want %v", round+1, got, want)
		}
	}
	return r
}

// freshAfter makes one change and checks that the next Freshness sees it:
// stale is the aliases it must report.
func freshAfter(t *testing.T, r *Reader, pkgs []Package, stale ...string) {
	t.Helper()
	f, err := r.Freshness(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	if f.Fresh || !slices.Equal(f.Stale, stale) {
		t.Fatalf("Freshness = %+v, want stale %q", f, stale)
	}
}

// TestWalkRecordShortcut: once a full walk found a package fresh, the next
// check stats its documents without reading its folders (the walk record),
// and every change a full walk sees is still seen: a document written in
// place (its size or only its mtime), a new document in a sub-folder, one
// removed, a kep.yaml edited, a .gitignore of the source edited in place
// or one of the project above it, a folder renamed. Each case starts from
// a new project.
func TestWalkRecordShortcut(t *testing.T) {
	t.Parallel()
	for name, c := range shortcutCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root, ctxDir, pkgs := recordProject(t)
			r := recordReader(t, root, ctxDir, pkgs)
			c.change(t, root)
			freshAfter(t, r, pkgs, c.stale)
		})
	}
}

// TestWalkRecordShortcutEarly: TestWalkRecordShortcut's changes, each
// made before an early walk (indexer/prewalk) starts, as a change made
// before `ctx search` starts: the check takes the early walk's stats and
// sees every one, a document written in place with its size and mtime
// kept included.
func TestWalkRecordShortcutEarly(t *testing.T) {
	t.Parallel()
	for name, c := range shortcutCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root, ctxDir, pkgs := recordProject(t)
			r := recordReader(t, root, ctxDir, pkgs)
			c.change(t, root)
			k := prewalk.Start(filepath.Join(root, "docs", "sub")) // from a folder below the project, as Find
			took := false
			r.early = func(indexDir string) *prewalk.Walk {
				w := k.Take(indexDir)
				took = took || w != nil
				return w
			}
			freshAfter(t, r, pkgs, c.stale)
			if !took {
				t.Fatal("the check did not take the early walk")
			}
		})
	}
}

// TestEarlyWalkIsUsed: the check takes the early walk's stats rather than
// stat again, and only the early walk of its own index folder (another
// project's it stops: no one takes it after): a file
// written in place (size and mtime kept) after the early walk stat'ed it
// is seen by a check that takes another project's early walk or none, and
// not by one that takes the walk made before the edit (as a check that
// ran then would not).
func TestEarlyWalkIsUsed(t *testing.T) {
	t.Parallel()
	root, ctxDir, pkgs := recordProject(t)
	r := recordReader(t, root, ctxDir, pkgs)
	other, otherCtx, otherPkgs := recordProject(t)
	recordReader(t, other, otherCtx, otherPkgs)

	w := prewalk.Start(root).Take(filepath.Join(ctxDir, project.IndexDir))
	if w == nil {
		t.Fatal("the early walk did not read the record")
	}
	for _, b := range w.Seen {
		b.Wait(0)
	}
	for _, b := range w.Docs {
		b.Wait(0)
	}
	shortcutCases()["same size and mtime, written in place"].change(t, root)

	wrong := prewalk.Start(other)
	r.early = wrong.Take
	freshAfter(t, r, pkgs, "lib")
	if wrong.Take(filepath.Join(otherCtx, project.IndexDir)) != nil {
		t.Error("another project's early walk, declined by the check, was not stopped")
	}

	given := false
	r.early = func(string) *prewalk.Walk {
		defer func() { given = true }()
		if given {
			return nil
		}
		return w
	}
	if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
		t.Fatalf("with the early walk made before the edit: Freshness = %+v, %v; want fresh (its stats taken)", f, err)
	}
	freshAfter(t, r, pkgs, "lib")
}

// shortcutCases are the changes TestWalkRecordShortcut makes, and the
// alias each makes stale.
func shortcutCases() map[string]struct {
	change func(t *testing.T, root string)
	stale  string
} {
	return map[string]struct {
		change func(t *testing.T, root string)
		stale  string
	}{
		"written in place": {func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "docs/sub/deep.md"), "# Deep\n\nNested quokka notes, and an okapi.\n")
		}, "docs"},
		"same size, new mtime": {func(t *testing.T, root string) {
			p := filepath.Join(root, ".context/packages/lib/a/b/c.md")
			writeFile(t, p, "# C\n\nA DEEP page.\n")
			if err := os.Chtimes(p, time.Unix(1e9, 0), time.Unix(1e9, 0)); err != nil {
				t.Fatal(err)
			}
		}, "lib"},
		"same size and mtime, written in place": {func(t *testing.T, root string) {
			p := filepath.Join(root, ".context/packages/lib/a/b/c.md")
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, "# C\n\nA DEEP page.\n")
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, "lib"},
		"a folder replaced by a link to its copy": {func(t *testing.T, root string) {
			b := filepath.Join(root, ".context/packages/lib/a/b")
			if err := os.Rename(b, filepath.Join(root, "b-copy")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, "b-copy"), b); err != nil {
				t.Fatal(err)
			}
		}, "lib"},
		"new document in a sub-folder": {func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, ".context/packages/lib/a/b/new.md"), "# New\n")
		}, "lib"},
		"document removed": {func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "docs/guide.md")); err != nil {
				t.Fatal(err)
			}
		}, "docs"},
		"kep.yaml edited": {func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, ".context/packages/lib/kep.yaml"), "title: Lib, renamed\n")
		}, "lib"},
		"the source's .gitignore edited in place": {func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "docs/sub/.gitignore"), "# nothing\n")
		}, "docs"},
		"the project's .gitignore edited in place": {func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, ".gitignore"), "/build/\n/docs/guide.md\n")
		}, "docs"},
		"a folder renamed": {func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, "docs/img"), filepath.Join(root, "docs/pictures")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(root, "docs/pictures/caption.md"), "# Caption\n")
		}, "docs"},
	}
}

// TestWalkRecordNotTrusted: the record is not written for folders changed
// too close to the walk (within the settling time), and a record that does not match the catalogue, is corrupt, or
// is of another package folder is not used: the full walk answers.
func TestWalkRecordNotTrusted(t *testing.T) {
	t.Parallel()
	root, ctxDir, pkgs := recordProject(t)
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Folders changed within the settling time before the walk: no
	// record (a settling time no test run outlasts stands for
	// walkRecordSettle, which a slow run can).
	r.walkSettle = 1000 * time.Hour
	if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
		t.Fatalf("Freshness = %+v, %v", f, err)
	}
	if _, err := os.Stat(filepath.Join(ctxDir, project.IndexDir, walkRecordFile)); !os.IsNotExist(err) {
		t.Fatalf("a walk record of folders changed a moment ago: %v", err)
	}

	r = recordReader(t, root, ctxDir, pkgs)
	recPath := filepath.Join(ctxDir, project.IndexDir, walkRecordFile)
	good, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"truncated":     good[:len(good)/2],
		"other version": append([]byte("ctx-walks 0\n"), good[len("ctx-walks 1\n"):]...),
		"trailing":      append(slices.Clone(good), 0),
		"empty":         nil,
	} {
		if err := os.WriteFile(recPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		walked := r.walks[1].Load()
		if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
			t.Fatalf("%s: Freshness = %+v, %v", name, f, err)
		}
		if r.walks[1].Load() != walked+2 {
			t.Errorf("%s: the record was used", name)
		}
	}
	// The packages' folders elsewhere (a project moved): walked in full.
	moved := slices.Clone(pkgs)
	moved[1].Dir = filepath.Join(root, "elsewhere")
	if err := os.Rename(filepath.Join(ctxDir, "packages", "lib"), moved[1].Dir); err != nil {
		t.Fatal(err)
	}
	walked := r.walks[1].Load()
	if f, err := r.Freshness(moved); err != nil || !f.Fresh {
		t.Fatalf("moved: Freshness = %+v, %v", f, err)
	}
	if r.walks[1].Load() != walked+1 {
		t.Errorf("moved: walked %d packages in full, want 1", r.walks[1].Load()-walked)
	}
	// After a Sync that changes a package's part, its record is not used.
	writeFile(t, filepath.Join(root, "docs/guide.md"), "# Guide\n\nRewritten.\n")
	if _, err := Sync(context.Background(), ctxDir, moved, Options{}); err != nil {
		t.Fatal(err)
	}
	walked = r.walks[1].Load()
	if f, err := r.Freshness(moved); err != nil || !f.Fresh {
		t.Fatalf("after Sync: Freshness = %+v, %v", f, err)
	}
	if r.walks[1].Load() != walked+1 {
		t.Errorf("after Sync: walked %d packages in full, want 1 (docs)", r.walks[1].Load()-walked)
	}
}

// TestWalkRecordCodec: what encodeWalks writes decodeWalks reads back; a
// path out of the package is refused; no prefix of it is read, and no
// byte changed makes it panic.
func TestWalkRecordCodec(t *testing.T) {
	recs := map[string]pkgWalk{
		"a": {alias: "a", key: "k\x00x", stamp: "s", at: -5, seen: []seenStat{
			{Path: ".", St: fileid.Stamp{Size: 1, MTime: 2, CTime: 3, Ino: 4}},
			{Path: ".gitignore", Above: true, Absent: true},
		}, docs: []string{"a.md", "b/c.md"}},
		"b": {alias: "b", docs: []string{}, seen: []seenStat{}},
	}
	b := encodeWalks(recs)
	got, err := decodeWalks(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a"].key != "k\x00x" || got["a"].at != -5 || !slices.Equal(got["a"].docs, recs["a"].docs) ||
		!slices.Equal(got["a"].seen, recs["a"].seen) || len(got["b"].docs) != 0 {
		t.Fatalf("decode(encode) = %+v", got)
	}
	for _, p := range []string{"../outside.md", "/etc/passwd", "a/../../b.md", "."} {
		if _, err := decodeWalks(encodeWalks(map[string]pkgWalk{"a": {alias: "a", docs: []string{p}}})); err == nil {
			t.Errorf("a record with the document %q was read", p)
		}
	}
	for i := range b {
		if _, err := decodeWalks(b[:i]); err == nil {
			t.Fatalf("a record cut at %d bytes was read", i)
		}
		c := slices.Clone(b)
		c[i] ^= 0xff
		decodeWalks(c) // no panic
	}
}

func FuzzDecodeWalks(f *testing.F) {
	f.Add(encodeWalks(map[string]pkgWalk{"a": {alias: "a", docs: []string{"x.md"}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeWalks(b)
	})
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDecodeWalksPlanted: as TestDecodeVersionsPlanted for walks.bin
// (decodeWalks): a record whose count of seen paths claims the file's
// bytes allocated 56 bytes a byte (a 1 MB file, 56 MB) before failing.
func TestDecodeWalksPlanted(t *testing.T) {
	const size = 1 << 20
	b := []byte(walkRecordVersion())
	b = binary.AppendUvarint(b, 1) // one package
	b = append(b, 0, 0, 0, 0)      // alias, key, stamp, at
	b = binary.AppendUvarint(b, size)
	b = append(b, make([]byte, size)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := decodeWalks(b); err == nil {
		t.Fatal("no error")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 24*size {
		t.Errorf("%d MB allocated to decode %d MB", got>>20, len(b)>>20)
	}
}

// TestRv23RecordBound: the early walk reads the walk record with the
// bound the indexer reads its files with (readIndexFile).
func TestRv23RecordBound(t *testing.T) {
	t.Parallel()
	if prewalk.MaxRecordBytes != maxIndexFileBytes {
		t.Fatalf("prewalk.MaxRecordBytes %d, maxIndexFileBytes %d", prewalk.MaxRecordBytes, maxIndexFileBytes)
	}
}
