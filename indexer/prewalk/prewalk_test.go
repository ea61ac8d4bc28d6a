package prewalk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/walkrec"
)

// TestSearchStart: the command lines of `ctx search` the early walk is
// started for, and the folder it starts from (-C's forms before the
// command, as cobra's flag parsing reads them); no walk for another
// command, another flag before the command, or a -C after it.
func TestSearchStart(t *testing.T) {
	for line, want := range map[string]string{
		"search pod":                  "",
		"search --json pod":           "",
		"-C /p search pod":            "/p",
		"-C rel/p search pod":         "rel/p",
		"--chdir /p search pod":       "/p",
		"--chdir=/p search pod":       "/p",
		"-C/p search pod":             "/p",
		"-C=/p search pod":            "/p",
		"-C /a -C /b search pod":      "/b",
		"search":                      "",
		"-C /p --chdir=/q search x y": "/q",
	} {
		got, ok := searchStart(strings.Fields(line))
		if !ok || got != want {
			t.Errorf("%q: %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"", "version", "searchx pod", "list search", "--json search pod", "-C", "-C /p", "search -C /p pod", "search pod --chdir=/p", "-v search pod"} {
		if got, ok := searchStart(strings.Fields(line)); ok {
			t.Errorf("%q: an early walk from %q; want none", line, got)
		}
	}
}

// TestRv23RootsInProject (review of cli23): the early walk stats only
// under the project folder whose record it read. The record names each
// package's folder (its key), and the early walk stats it before the
// check has compared that key with its own package's: a record planted
// in a repository's .context/index made every `ctx search` stat whatever
// folders it named (an automounted /net/host, a network share), which
// the check, that compares first, never did.
func TestRv23RootsInProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	idx := filepath.Join(root, contextDir, indexDir)
	if err := os.MkdirAll(idx, 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(root, contextDir, "packages", "in")
	recs := map[string]walkrec.Rec{
		"in":   {Alias: "in", Key: in + "\x00", Seen: []walkrec.Seen{{Path: "."}}, Docs: []string{"a.md"}},
		"live": {Alias: "live", Key: filepath.Join(root, "docs") + "\x00", Docs: []string{"b.md"}},
		"out":  {Alias: "out", Key: t.TempDir() + "\x00", Seen: []walkrec.Seen{{Path: "."}}, Docs: []string{"c.md"}},
		"up":   {Alias: "up", Key: root + string(filepath.Separator) + ".." + "\x00", Docs: []string{"d.md"}},
		"rel":  {Alias: "rel", Key: "docs\x00", Docs: []string{"e.md"}},
	}
	if err := os.WriteFile(filepath.Join(idx, recordFile), walkrec.Encode(walkrec.Magic+"1 .md\n", recs), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Start(root).Take(idx)
	if w == nil {
		t.Fatal("no early walk")
	}
	for _, a := range []string{"in", "live"} {
		if w.Seen[a] == nil || w.Docs[a] == nil {
			t.Errorf("%s: no batch for a package folder in the project", a)
		}
	}
	for _, a := range []string{"out", "up", "rel"} {
		if w.Seen[a] != nil || w.Docs[a] != nil {
			t.Errorf("%s: a batch for %q, not in the project %s", a, walkrec.KeyDir(recs[a].Key), root)
		}
	}
	for _, b := range w.Docs {
		b.Wait(0)
	}
}
