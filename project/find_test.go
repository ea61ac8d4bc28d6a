package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// findTree makes the folders and files named (a name ending in / is a
// folder) under a fresh folder whose .git bounds every walk (nothing above
// the test's folder is looked at), and returns it.
func findTree(t *testing.T, names ...string) string {
	t.Helper()
	base := t.TempDir()
	for _, n := range append([]string{".git/"}, names...) {
		p := filepath.Join(base, filepath.FromSlash(n))
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

func TestFind(t *testing.T) {
	const m = ".context/context.config.json"
	base := findTree(t,
		"p/"+m, "p/docs/deep/",
		"p/inner/"+m, "p/inner/sub/",
		"p/repo/.git/", "p/repo/sub/",
		"p/ctxonly/.context/", "p/ctxonly/x/",
		"p/lockonly/.context/context.lock",
		"p/dirmanifest/.context/context.config.json/",
		"p/.context/packages/hb/.context/context.config.json", "p/.context/packages/hb/docs/",
		"p/inner/.context/backup/hb-1/.context/context.config.json",
	)
	for _, c := range []struct{ start, want string }{
		{"p", "p"},                   // the start itself
		{"p/docs/deep", "p"},         // found upward
		{"p/inner/sub", "p/inner"},   // the inner project wins
		{"p/inner", "p/inner"},       // ... and at its root
		{"p/repo/sub", "p/repo/sub"}, // a git work tree's top stops the walk: nothing found
		{"p/repo", "p/repo"},         // the top itself
		{"p/ctxonly/x", "p"},         // .context/ alone is no marker
		{"p/lockonly", "p"},          // nor a lock alone
		{"p/dirmanifest", "p"},       // nor a folder named as the manifest
		{".", "."},                   // the base has .git and no manifest
		// A manifest inside a project's .context/ (an installed package's
		// repository carried one; a backup keeps it) is a copy, no project.
		{"p/.context/packages/hb/docs", "p"},
		{"p/.context/packages/hb", "p"},
		{"p/inner/.context/backup/hb-1", "p/inner"},
	} {
		got, err := Find(filepath.Join(base, c.start), FindOptions{})
		if err != nil {
			t.Errorf("Find(%s): %v", c.start, err)
			continue
		}
		if want := filepath.Join(base, c.want); got != want {
			t.Errorf("Find(%s) = %s, want %s", c.start, got, want)
		}
	}
}

// A ceiling (CTX_CEILING_DIRECTORIES) is not gone up into: below it, the
// project above it is not found; the ceiling as the start is looked at.
func TestFindCeiling(t *testing.T) {
	base := findTree(t, "p/.context/context.config.json", "p/a/b/")
	ceil := []string{filepath.Join(base, "p")}
	start := filepath.Join(base, "p", "a", "b")
	if got, err := Find(start, FindOptions{Ceilings: ceil}); err != nil || got != start {
		t.Errorf("Find below a ceiling = %s, %v; want the start %s", got, err, start)
	}
	if got, err := Find(start, FindOptions{Ceilings: []string{filepath.Join(base, "p", "a")}}); err != nil || got != start {
		t.Errorf("Find below a ceiling = %s, %v; want the start %s", got, err, start)
	}
	if got, err := Find(ceil[0], FindOptions{Ceilings: ceil}); err != nil || got != ceil[0] {
		t.Errorf("Find at the ceiling = %s, %v; want it", got, err)
	}
	if got, err := Find(start, FindOptions{Ceilings: []string{base}}); err != nil || got != ceil[0] {
		t.Errorf("Find with a ceiling above the project = %s, %v; want %s", got, err, ceil[0])
	}
}

// A project above the start owned by another user (planted in /tmp, say)
// is refused, naming it and -C; one owned by the user or by root is taken;
// the start folder itself is not checked (the user chose it).
func TestFindOwner(t *testing.T) {
	base := findTree(t, "tmp/.context/context.config.json", "tmp/me/work/")
	planted := filepath.Join(base, "tmp")
	start := filepath.Join(planted, "me", "work")
	owner := func(uid int, only string) func(fs.FileInfo) (int, bool) {
		return func(fi fs.FileInfo) (int, bool) {
			if only == "" || fi.Name() == only {
				return uid, true
			}
			return 1000, true
		}
	}
	me := func() int { return 1000 }
	for _, c := range []struct {
		name  string
		owner func(fs.FileInfo) (int, bool)
		ok    bool
	}{
		{"mine", owner(1000, ""), true},
		{"root's", owner(0, ""), true},
		{"another's", owner(1001, ""), false},
		{"another's .context", owner(1001, DirName), false},
		{"another's manifest", owner(1001, ManifestName), false},
		{"no owners (Windows)", func(fs.FileInfo) (int, bool) { return 1001, false }, true},
	} {
		got, err := Find(start, FindOptions{Owner: c.owner, UID: me})
		if c.ok {
			if err != nil || got != planted {
				t.Errorf("%s: Find = %s, %v; want %s", c.name, got, err, planted)
			}
			continue
		}
		if !errors.Is(err, ErrNoProject) || !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "-C "+planted) || !strings.Contains(err.Error(), "user 1001's") {
			t.Errorf("%s: Find = %q, %v; want ErrNoProject and ErrNotOwned naming -C %s and the owner", c.name, got, err, planted)
		}
	}
	// The start itself is the user's choice: not checked.
	if got, err := Find(planted, FindOptions{Owner: owner(1001, ""), UID: me}); err != nil || got != planted {
		t.Errorf("Find at the project = %s, %v; want it, unchecked", got, err)
	}
}

// `sudo ctx …` in a subfolder of the user's own project (fixA19): running
// as root, an owner equal to SUDO_UID (FindOptions.SudoUID) is accepted,
// as git's safe.directory does; not running as root, SUDO_UID is ignored
// (anyone can set it).
func TestFindOwnerSudo(t *testing.T) {
	base := findTree(t, "home/u/proj/.context/context.config.json", "home/u/proj/sub/")
	root := filepath.Join(base, "home", "u", "proj")
	start := filepath.Join(root, "sub")
	users := func(fs.FileInfo) (int, bool) { return 1000, true }
	asRoot := func() int { return 0 }
	if got, err := Find(start, FindOptions{Owner: users, UID: asRoot, SudoUID: 1000}); err != nil || got != root {
		t.Errorf("sudo by the owner: Find = %s, %v; want %s", got, err, root)
	}
	if _, err := Find(start, FindOptions{Owner: users, UID: asRoot}); !errors.Is(err, ErrNotOwned) {
		t.Errorf("root without SUDO_UID: Find err = %v; want ErrNotOwned", err)
	}
	if _, err := Find(start, FindOptions{Owner: users, UID: asRoot, SudoUID: 1001}); !errors.Is(err, ErrNotOwned) {
		t.Errorf("sudo by another user: Find err = %v; want ErrNotOwned", err)
	}
	if _, err := Find(start, FindOptions{Owner: users, UID: func() int { return 1001 }, SudoUID: 1000}); !errors.Is(err, ErrNotOwned) {
		t.Errorf("SUDO_UID set by a user who is not root: Find err = %v; want ErrNotOwned", err)
	}
}

// The real owner of a file the test made is the running user's: Find
// takes the project above (the default FindOptions).
func TestFindOwnerReal(t *testing.T) {
	base := findTree(t, "p/.context/context.config.json", "p/sub/")
	if got, err := Find(filepath.Join(base, "p", "sub"), FindOptions{}); err != nil || got != filepath.Join(base, "p") {
		t.Errorf("Find = %s, %v; want the project above", got, err)
	}
}

// noProject, where the walk stopped at a git work tree's top inside a
// project, names the project and the repository.
func TestNoProjectInRepository(t *testing.T) {
	base := findTree(t, "p/.context/context.config.json", "p/vendor/lib/.git/", "p/vendor/lib/sub/")
	p, err := At(filepath.Join(base, "p", "vendor", "lib", "sub"))
	if err != nil {
		t.Fatal(err)
	}
	err = p.Check()
	want := "inside the project at " + filepath.Join(base, "p") + ", but in the git repository at " + filepath.Join(base, "p", "vendor", "lib")
	if !errors.Is(err, ErrNoProject) || !strings.Contains(err.Error(), want) {
		t.Errorf("Check = %v, want ErrNoProject saying %q", err, want)
	}
}
