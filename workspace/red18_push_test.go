package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// TestRed18PushGoesWhereTheLockSays (red18 finding 1): a teammate's commit
// changes only the lock's source of a git package (the manifest still names
// the real upstream); the user edits the package and runs ctx push. The
// edits must not go to the lock's source: the manifest is what names a
// package's source, and install would re-resolve from it. On dd4e78d
// the push went to the lock's repository (here a repository elsewhere on
// disk, which the manifest could not even name) and said only "pushed".
func TestRed18PushGoesWhereTheLockSays(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(lock []byte, upstream, evil string) []byte
	}{
		{"source", func(lock []byte, upstream, evil string) []byte {
			return bytes.Replace(lock, []byte(strconv.Quote(upstream)), []byte(strconv.Quote(evil)), 1)
		}},
		{"locked only", nil}, // the package is taken out of the manifest, its lock entry kept (and pointed elsewhere)
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			w := f.open(f.project)
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
			w.Close()
			evil := filepath.Join(f.tmp, "evil")
			gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, evil)
			lockPath := filepath.Join(f.project, project.DirName, project.LockName)
			lock := []byte(readFile(t, lockPath))
			if !bytes.Contains(lock, []byte(strconv.Quote(f.upstream))) {
				t.Fatalf("the lock does not name %s:\n%s", f.upstream, lock)
			}
			if c.edit != nil {
				writeFile(t, lockPath, string(c.edit(lock, f.upstream, evil)))
			} else {
				writeFile(t, lockPath, string(bytes.Replace(lock, []byte(strconv.Quote(f.upstream)), []byte(strconv.Quote(evil)), 1)))
				man := filepath.Join(f.project, project.DirName, project.ManifestName)
				m := readFile(t, man)
				i := strings.Index(m, `"packages": [`)
				if i < 0 {
					t.Fatalf("no packages in the manifest:\n%s", m)
				}
				end := strings.Index(m[i:], "]")
				writeFile(t, man, m[:i]+`"packages": []`+m[i+end+1:])
			}
			pkg := filepath.Join(f.project, project.DirName, project.PackagesDir, "guides")
			writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmy private edit\n")
			if err := os.WriteFile(filepath.Join(pkg, "new.md"), []byte("# New\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			w2, err := Open(f.project, f.opts())
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			res, err := w2.Push(bg, "guides", PushOptions{})
			if branches := gittest.MustGit(t, evil, "branch", "--list", "ctx/*"); strings.TrimSpace(branches) != "" {
				t.Errorf("the user's edits were pushed to the lock's source %s (branch %s)", evil, strings.TrimSpace(branches))
			}
			if err == nil {
				t.Fatalf("push succeeded (%+v); want an error saying the lock and the manifest disagree", res)
			}
			if !strings.Contains(err.Error(), "ctx install") {
				t.Errorf("error %q does not say what to do (ctx install)", err)
			}
		})
	}
}
