package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// Ctrl-C just after the commit (review19d): the packages are in place,
// the index is not. The command says so, with the command that builds it,
// and a later install with nothing to change builds it: on a first build
// (no index at all) and on an index that was being updated (the new
// package not in it).
func TestInterruptAfterCommitSaysSoAndInstallFinishes(t *testing.T) {
	t.Parallel()
	for _, first := range []bool{true, false} {
		f := newFixture(t)
		w := f.open(f.project)
		if !first {
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
		}
		ctx, cancel := context.WithCancel(bg)
		w.opts.testHook = func(stage, alias string) error {
			if stage == "committed" {
				cancel() // the Ctrl-C, at this point exactly
			}
			return nil
		}
		f.log.Reset()
		_, err := w.Add(ctx, []project.PackageSpec{{Source: f.upstream, Path: "team"}}, AddOptions{})
		cancel()
		w.opts.testHook = nil
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("first=%v: add: %v", first, err)
		}
		if !strings.Contains(f.log.String(), "the index was not updated: interrupted (run `ctx index`)") {
			t.Errorf("first=%v: the interruption left the index as it was and said nothing of it: %q", first, f.log.String())
		}
		if _, err := os.Stat(filepath.Join(w.Dir(), "packages", "team")); err != nil {
			t.Fatalf("first=%v: the committed package is not in place: %v", first, err)
		}
		if first {
			if _, err := os.Stat(filepath.Join(w.Dir(), project.IndexName)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("first=%v: %s after an interrupted first build: %v", first, project.IndexName, err)
			}
		} else if indexHas(t, w, "handbook", "team") {
			t.Fatalf("first=%v: the package is searchable though its index update was interrupted", first)
		}
		rep := f.must(w.Install(bg, InstallOptions{}))
		for _, p := range rep.Packages {
			if p.Action != Unchanged {
				t.Errorf("first=%v: re-run: %s %v", first, p.Alias, p.Action)
			}
		}
		if rep.Index == nil {
			t.Errorf("first=%v: the re-run with nothing to change did not bring the index up to date", first)
		}
		if !indexHas(t, w, "handbook", "team") {
			t.Errorf("first=%v: after the re-run, team is not searchable", first)
		}
		if _, err := os.Stat(filepath.Join(w.Dir(), project.IndexName)); err != nil {
			t.Errorf("first=%v: no %s after the re-run: %v", first, project.IndexName, err)
		}
		// Up to date now: a further install leaves the index alone.
		if rep := f.must(w.Install(bg, InstallOptions{})); rep.Index != nil {
			t.Errorf("first=%v: an install re-indexed a fresh index: %+v", first, rep.Index)
		}
	}
}
