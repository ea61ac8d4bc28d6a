package naming

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWithin(t *testing.T) {
	t.Parallel()
	root := filepath.FromSlash("/a/b")
	if runtime.GOOS == "windows" {
		root = `C:\a\b`
	}
	j := func(elem ...string) string { return filepath.Join(append([]string{root}, elem...)...) }
	for _, c := range []struct {
		p    string
		rel  string
		want bool
	}{
		{root, ".", true},
		{j("c"), "c", true},
		{j("c", "d.md"), filepath.Join("c", "d.md"), true},
		{j("..c"), "..c", true},              // a name starting with "..", inside
		{root + "c", "", false},              // /a/bc: a prefix, not a child
		{filepath.Dir(root), "", false},      // the parent
		{j("..", "bc", "x"), "", false},      // a sibling's child
		{j("c", "..", "..", "x"), "", false}, // cleaned: leaves root
		{j("c", "..", "d"), "d", true},       // cleaned: stays in root
		{root + string(filepath.Separator), ".", true},
		{"relative/x", "", false}, // not comparable with an absolute root
	} {
		rel, ok := RelIn(root, c.p)
		if ok != c.want || rel != c.rel || Within(root, c.p) != c.want {
			t.Errorf("RelIn(%q, %q) = %q, %v; want %q, %v", root, c.p, rel, ok, c.rel, c.want)
		}
	}
	// The file system's root holds every absolute path.
	top := filepath.VolumeName(root) + string(filepath.Separator)
	if rel, ok := RelIn(top, j("c")); !ok || rel != filepath.Join(root[len(top):], "c") {
		t.Errorf("Within(%q, %q) = %q, %v", top, j("c"), rel, ok)
	}
	if runtime.GOOS == "windows" {
		if Within(`C:\a`, `D:\a\b`) {
			t.Error(`D:\a\b is inside C:\a`)
		}
		if rel, ok := RelIn(`C:\a`, `C:/a/b`); !ok || rel != "b" {
			t.Errorf(`Within(C:\a, C:/a/b) = %q, %v: a slash is a separator on Windows`, rel, ok)
		}
	}
}

// Within goes by names: a link inside root that leads out is inside by
// its name, and outside once resolved, as the callers that must see
// where links lead resolve it first.
func TestWithinLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, out := filepath.Join(dir, "root"), filepath.Join(dir, "out")
	for _, d := range []string{root, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(out, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if !Within(root, link) {
		t.Errorf("%s is not inside %s by its name", link, root)
	}
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		t.Fatal(err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	if Within(realRoot, real) {
		t.Errorf("%s (resolved: %s) is inside %s", link, real, realRoot)
	}
}
