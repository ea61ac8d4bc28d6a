package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/tokens"
)

// TestNoteRecent: INDEX.md's "Recently changed" part names what the last
// update changed, each name a code span, a package that is not installed
// left out; the part stays within its share of the budget, and a later
// Sync keeps it.
func TestNoteRecent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	pkgs := testPackages()
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	readMD := func() string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if strings.Contains(readMD(), "Recently changed") {
		t.Fatal("INDEX.md has a Recently changed part before any update")
	}
	when := time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)
	recent := []RecentChange{
		{Alias: pkgs[0].Alias, From: strings.Repeat("a", 40), To: strings.Repeat("b", 40), When: when, Summary: "3 documents, 1 section changed",
			Docs: []string{"guide.md: Configure", "new.md added", "old`s.md removed"}},
		{Alias: "gone", Summary: "1 document changed", Docs: []string{"x.md added"}},
	}
	if _, err := NoteRecent(ctx, dir, recent, Options{}); err != nil {
		t.Fatal(err)
	}
	md := readMD()
	want := "## Recently changed\n\n- `" + pkgs[0].Alias + "` `aaaaaaa` → `bbbbbbb` (2026-11-26): 3 documents, 1 section changed: `guide.md: Configure`, `new.md added`, ``old`s.md removed``\n"
	if !strings.Contains(md, want) {
		t.Errorf("INDEX.md lacks\n%s\n in:\n%s", want, md)
	}
	if strings.Contains(md, "gone") {
		t.Errorf("a package that is not installed is named:\n%s", md)
	}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readMD(); got != md {
		t.Errorf("a Sync changed INDEX.md:\n%s", got)
	}

	// Within its share of a small budget: lines past it left out.
	var many []RecentChange
	for range 50 {
		many = append(many, RecentChange{Alias: pkgs[0].Alias, Summary: strings.Repeat("word ", 40)})
	}
	part := recentPart(many, pkgs, 4000, new(tokens.Counter))
	if n := new(tokens.Counter).Count(part); n > 4000/recentShare || n == 0 {
		t.Errorf("the part is %d tokens, want 1 to %d", n, 4000/recentShare)
	}
	if recentPart(many, pkgs, 100, new(tokens.Counter)) != "" {
		t.Error("a budget too small for one line still shows the part")
	}
}

// TestSyncRecent: a Sync with Options.Recent records what it returns and
// shows it in the same render of INDEX.md, as NoteRecent would after it;
// an empty answer leaves the record (and INDEX.md) as it was.
func TestSyncRecent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	pkgs := testPackages()
	recent := []RecentChange{{Alias: pkgs[0].Alias, Summary: "1 document changed", Docs: []string{"guide.md: Configure"}}}
	asked := 0
	if _, err := Sync(ctx, dir, pkgs, Options{Recent: func() []RecentChange { asked++; return recent }}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "## Recently changed\n\n- `" + pkgs[0].Alias + "`: 1 document changed: `guide.md: Configure`\n"
	if asked != 1 || !strings.Contains(string(md), want) {
		t.Fatalf("Recent asked %d times; INDEX.md lacks\n%s\nin:\n%s", asked, want, md)
	}
	if _, err := Sync(ctx, dir, pkgs, Options{Recent: func() []RecentChange { return nil }}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "INDEX.md")); string(got) != string(md) {
		t.Errorf("a Sync whose Recent returned nothing changed INDEX.md:\n%s", got)
	}
}
