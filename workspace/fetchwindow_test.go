package workspace

import (
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// review17d: the guard looks at the package folder when the command
// plans; planPatch looks again after the fetch (asInstalled: "changed
// while ctx was updating") but only at files ctx installed. A file that is
// not one (made locally) and is written while ctx update fetches is
// deleted (not in the new tree) or overwritten (in it) without a word or a
// backup. "new.md" is a file added locally, equal to the target's (the
// merged-push exception of audit17 finding 5 lets the update through),
// then edited again; "notes.md" is a file made during the update of a
// clean package.
func TestReview17dFileWrittenDuringFetch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file, mine string
		pushed           bool
	}{
		{"added file edited again", "new.md", "# New\n\nmine, edited again\n", true},
		{"file made in a clean package", "notes.md", "# My notes\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.commit("base", map[string]string{"guides/x.md": "# X\n\nold\n"})
			w := f.open(f.project)
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
			pkg := w.pkgDir("guides")
			up := map[string]string{"guides/x.md": "# X\n\nnew\n"}
			if c.pushed {
				writeFile(t, filepath.Join(pkg, "new.md"), "# New\n\nmine\n")
				up["guides/new.md"] = "# New\n\nmine\n"
			}
			f.commit("upstream", up)
			edited := false
			w.opts.testHook = func(stage, alias string) error {
				if stage == "write:stage" && !edited {
					edited = true
					writeFile(t, filepath.Join(pkg, c.file), c.mine)
				}
				return nil
			}
			r, err := w.Update(bg, nil, UpdateOptions{})
			if !edited {
				t.Fatal("the hook never ran at write:stage")
			}
			var res string
			if r != nil && len(r.Packages) > 0 {
				res = string(r.Packages[0].Action) + " " + string(r.Packages[0].Reason) + " " + r.Packages[0].Backup
				if r.Packages[0].Err != nil {
					res += " " + r.Packages[0].Err.Error()
				}
			}
			p := filepath.Join(pkg, c.file)
			if !exists(p) {
				t.Fatalf("%s, written during the update, is gone (update: %s, err %v)", c.file, res, err)
			}
			if got := readFile(t, p); got != c.mine {
				t.Fatalf("%s = %q, want %q: overwritten (update: %s, err %v)", c.file, got, c.mine, res, err)
			}
		})
	}
}
