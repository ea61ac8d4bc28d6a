package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestEditAfterCrashStaysAnEdit: an update patches a package, writes its
// new state and crashes before its journal is dropped ("swapped",
// "locked"); the user then edits a file the patch wrote. The recovery
// must not stamp the edited file as the one ctx installed: status reports
// it, so the next update keeps it.
func TestEditAfterCrashStaysAnEdit(t *testing.T) {
	t.Parallel()
	for _, stage := range []string{"swapped", "locked"} {
		t.Run(stage, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			w := f.open(f.project)
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
			f.commit("moves", map[string]string{"guides/other.md": "# v2\n"})
			crashUpdateAt(t, w, stage, "guides")
			if !exists(w.tmp("guides.journal")) {
				t.Fatal("the simulated crash left no journal to recover")
			}
			edited := filepath.Join(w.pkgDir("guides"), "other.md")
			if err := os.WriteFile(edited, []byte("# v2\nmy local edit\n"), 0o644); err != nil {
				t.Fatal(err)
			}

			w2 := f.open(f.project)
			st, err := w2.Status()
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, p := range st {
				for _, c := range p.Files {
					found = found || (p.Alias == "guides" && c.Path == "other.md")
				}
			}
			if !found {
				t.Fatalf("other.md was edited after the crash, but status after the recovery reports %+v", st)
			}
		})
	}
}
