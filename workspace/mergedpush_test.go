package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestMergedPushThenUpstreamMovesOn (audit17 finding 5): edits sent with
// ctx push and merged upstream, after which the upstream moved on (a
// colleague added, changed and deleted other files), update without
// --force: every locally changed file (modified, added, deleted) is as the
// target commit has it, so nothing is lost; the other files are updated as
// usual, and the package is clean. A local edit the target does not hold
// still stops the update.
func TestMergedPushThenUpstreamMovesOn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		upstream map[string]string // guides/x.md, guides/gone.md as the target has them ("" = deleted)
		pass     bool
		dirty    []string
	}{
		{"merged", map[string]string{"guides/x.md": "# X\n\nmine\n", "guides/new.md": "# New\n\nmine\n", "guides/gone.md": ""}, true, nil},
		{"x differs", map[string]string{"guides/x.md": "# X\n\ntheirs\n", "guides/new.md": "# New\n\nmine\n", "guides/gone.md": ""}, false, []string{"D gone.md", "A new.md", "M x.md"}},
		{"gone kept", map[string]string{"guides/x.md": "# X\n\nmine\n", "guides/new.md": "# New\n\nmine\n"}, false, []string{"D gone.md", "A new.md", "M x.md"}},
		{"new missing", map[string]string{"guides/x.md": "# X\n\nmine\n", "guides/gone.md": ""}, false, []string{"D gone.md", "A new.md", "M x.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.commit("base", map[string]string{"guides/x.md": "# X\n\nold\n", "guides/y.md": "# Y\n\nold\n", "guides/gone.md": "# Gone\n", "guides/z.md": "# Z\n"})
			w := f.open(f.project)
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
			pkg := w.pkgDir("guides")
			writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmine\n")
			writeFile(t, filepath.Join(pkg, "new.md"), "# New\n\nmine\n")
			if err := os.Remove(filepath.Join(pkg, "gone.md")); err != nil {
				t.Fatal(err)
			}
			// The target: the merge as c says, then a colleague's commit
			// that changes y.md, deletes z.md and adds other.md.
			files := map[string]string{"guides/y.md": "# Y\n\nnew\n", "guides/other.md": "# Other\n"}
			for p, s := range c.upstream {
				if s == "" {
					if err := os.Remove(filepath.Join(f.upstream, p)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				files[p] = s
			}
			if err := os.Remove(filepath.Join(f.upstream, "guides", "z.md")); err != nil {
				t.Fatal(err)
			}
			f.commit("merge and move on", files)
			r, err := w.Update(bg, nil, UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			g := r.Packages[0]
			if !c.pass {
				if g.Action != Skipped || g.Reason != SkipDirty || !reflect.DeepEqual(g.DirtyFiles, c.dirty) {
					t.Fatalf("got %s %s %q, want skipped as dirty with %q", g.Action, g.Reason, g.DirtyFiles, c.dirty)
				}
				if got := readFile(t, filepath.Join(pkg, "x.md")); got != "# X\n\nmine\n" {
					t.Errorf("x.md = %q, the local edit is lost", got)
				}
				return
			}
			if g.Action != Updated || len(g.DirtyFiles) != 0 || g.Backup != "" {
				t.Fatalf("got %s %s %q backup %q, want updated with no dirty files and no backup", g.Action, g.Reason, g.DirtyFiles, g.Backup)
			}
			want := map[string]string{"x.md": "# X\n\nmine\n", "new.md": "# New\n\nmine\n", "y.md": "# Y\n\nnew\n", "other.md": "# Other\n"}
			for p, s := range want {
				if got := readFile(t, filepath.Join(pkg, p)); got != s {
					t.Errorf("%s = %q, want %q", p, got, s)
				}
			}
			for _, p := range []string{"gone.md", "z.md"} {
				if exists(filepath.Join(pkg, p)) {
					t.Errorf("%s is still there", p)
				}
			}
			checkClean(t, w)
		})
	}
}
