package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeferIndexMD: a Sync with DeferIndexMD publishes the search index
// (an edit is searchable) and leaves INDEX.md as it was; a RenderIndexMD
// that is stopped writes nothing; the next renders INDEX.md byte for byte
// as a plain Sync of the same files does, and records the same state in the
// catalogue; once current, neither RenderIndexMD nor Sync writes it again.
// A plain Sync (ctx index) after a deferred one renders it too.
func TestDeferIndexMD(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := setupCorpus(t), setupCorpus(t)
	pkgs := testPackages()
	for _, dir := range []string{a, b} {
		if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	readMD := func(dir string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	before := readMD(a)
	if !strings.Contains(before, "Go style") {
		t.Fatalf("INDEX.md does not list the title the test changes:\n%s", before)
	}
	edit := map[string]string{"style/go.md": "# Go conventions\n\nThe wombat rule: errors are wrapped with %w.\n"}
	writeFiles(t, a, "guides", edit)
	writeFiles(t, b, "guides", edit)

	rep, err := Sync(ctx, a, pkgs, Options{DeferIndexMD: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Updated != 1 {
		t.Errorf("deferred sync report = %+v, want one document updated", rep)
	}
	r, err := OpenReader(a)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if hits, err := r.Search(ctx, Query{Text: "wombat"}); err != nil || len(hits) != 1 {
		t.Fatalf("search wombat after the deferred sync: %d hits, %v; want the edited document", len(hits), err)
	}
	if got := readMD(a); got != before {
		t.Errorf("a deferred sync rewrote INDEX.md")
	}

	stopped, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := RenderIndexMD(stopped, a, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("RenderIndexMD with a cancelled context: %v, want context.Canceled", err)
	}
	if got := readMD(a); got != before {
		t.Errorf("a stopped RenderIndexMD wrote INDEX.md")
	}

	rrep, err := RenderIndexMD(ctx, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, b, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	got, want := readMD(a), readMD(b)
	if got != want || !strings.Contains(got, "Go conventions") {
		t.Errorf("INDEX.md after RenderIndexMD differs from a plain Sync's:\n%s\nwant:\n%s", got, want)
	}
	catA, errA := readCatalog(filepath.Join(a, "index"))
	catB, errB := readCatalog(filepath.Join(b, "index"))
	if errA != nil || errB != nil || catA.IndexMD != catB.IndexMD {
		t.Errorf("catalogue's INDEX.md state %+v (%v), want a plain Sync's %+v (%v)", catA.IndexMD, errA, catB.IndexMD, errB)
	}
	if rrep.IndexTokens != catB.IndexMD.Tokens || rrep.IndexTokens == 0 {
		t.Errorf("RenderIndexMD report tokens %d, want %d", rrep.IndexTokens, catB.IndexMD.Tokens)
	}

	// Current: neither writes it again.
	info1, _ := os.Stat(filepath.Join(a, "INDEX.md"))
	if _, err := RenderIndexMD(ctx, a, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, a, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	info2, _ := os.Stat(filepath.Join(a, "INDEX.md"))
	if !info1.ModTime().Equal(info2.ModTime()) {
		t.Errorf("INDEX.md rewritten though current")
	}

	// ctx index after a deferred sync renders what it put off.
	writeFiles(t, a, "guides", map[string]string{"style/go.md": "# Go idioms\n\nThe numbat rule.\n"})
	if _, err := Sync(ctx, a, pkgs, Options{DeferIndexMD: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, a, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readMD(a); !strings.Contains(got, "Go idioms") {
		t.Errorf("INDEX.md after a plain Sync that followed a deferred one does not list the new title:\n%s", got)
	}
}

// TestRenderIndexMDNoIndex: with no index yet, RenderIndexMD says so and
// creates nothing.
func TestRenderIndexMDNoIndex(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := RenderIndexMD(context.Background(), dir, Options{}); err == nil || !strings.Contains(err.Error(), "ctx index") {
		t.Errorf("RenderIndexMD without an index: %v, want an error that says to run ctx index", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("RenderIndexMD without an index created %d entries", len(entries))
	}
}
