package indexer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// TestStreamRecent: a Stream's Finish records what Options.Recent returns
// (asked once, on a goroutine of its own while the search index is
// written) and shows it in its render of INDEX.md; a record that cannot
// be written is a warning given to Warn, and the update goes on.
func TestStreamRecent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, blocked := range []bool{false, true} {
		dir := setupCorpus(t)
		pkgs := testPackages()
		if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
			t.Fatal(err)
		}
		if blocked {
			// A folder where the record goes: its write fails.
			if err := os.Mkdir(filepath.Join(dir, "index", recentFile), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		writeFiles(t, dir, "ops", map[string]string{"new.md": "# New\n\nThe word capybara is new.\n"})
		recent := []RecentChange{{Alias: "ops", Summary: "1 document added", Docs: []string{"new.md added"}}}
		var asked atomic.Int32
		var notes []string
		s, err := StartSync(ctx, dir, Options{Recent: func() []RecentChange { asked.Add(1); return recent }, Warn: func(m string) { notes = append(notes, m) }})
		if err != nil {
			t.Fatal(err)
		}
		s.Landed(Package{Alias: "ops"})
		s.AllLanded()
		rep, err := s.Finish(ctx, pkgs)
		if err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
		if err != nil {
			t.Fatal(err)
		}
		want := "## Recently changed\n\n- `ops`: 1 document added: `new.md added`\n"
		if asked.Load() != 1 || rep.Added != 1 || strings.Contains(string(md), want) == blocked {
			t.Errorf("blocked %v: Recent asked %d times, %d added; INDEX.md:\n%s", blocked, asked.Load(), rep.Added, md)
		}
		if warned := strings.Contains(strings.Join(notes, "\n"), "INDEX.md does not say what changed"); warned != blocked {
			t.Errorf("blocked %v: notes %q", blocked, notes)
		}
	}
}

// TestWarmForRecent: the codec is started early (upd23) when a line of
// the record holds a piece INDEX.md's kept pieces (tokensFile) lack, and
// not when the render can count every line from them.
func TestWarmForRecent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	when := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	seen := RecentChange{Alias: "docs", From: "7816305aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", To: "62aa2fcbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", When: when,
		Summary: "1 document, 2 sections changed", Docs: []string{"part3/page303.md: Page, edition 230"}}
	// The pieces a render of seen's part kept (as INDEX.md's render
	// keeps them in tokensFile).
	var tc tokens.Counter
	if recentPart([]RecentChange{seen}, []Package{{Alias: "docs"}}, DefaultBudgetTokens, &tc) == "" {
		t.Fatal("nothing rendered")
	}
	st := tokensState{Schema: schemaVersion, Counts: map[string]int{}, Pieces: tc.Pieces()}
	if err := os.WriteFile(filepath.Join(dir, tokensFile), mustJSON(t, st), 0o644); err != nil {
		t.Fatal(err)
	}
	warmed := func(r []RecentChange) bool {
		called := false
		warmForRecent(dir, r, func() { called = true })
		return called
	}
	again := seen
	again.Docs = []string{"part3/page313.md: Page, edition 231"}
	novel := seen
	novel.Docs = []string{"part3/page303.md: Kubernetes rollout"}
	for _, c := range []struct {
		name string
		r    []RecentChange
		want bool
	}{
		{"none", nil, false},
		{"words seen", []RecentChange{again}, false},
		{"a new word", []RecentChange{novel}, true},
		// Two lines: "`\n" before the second line's "-" is a piece the
		// render of one line never counted ("`\n\n" before the tail).
		{"two lines", []RecentChange{seen, again}, true},
	} {
		if got := warmed(c.r); got != c.want {
			t.Errorf("%s: warmed %v, want %v", c.name, got, c.want)
		}
	}
	if !func() bool {
		called := false
		warmForRecent(t.TempDir(), []RecentChange{seen}, func() { called = true })
		return called
	}() {
		t.Error("no kept pieces (no tokensFile): not warmed")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
