package gitengine

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
)

func TestSafeName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"a.md": true, "README": true, ".github": true, ".gitignore": true, "git": true, "a:b": true,
		"": false, ".": false, "..": false, ".git": false, ".GIT": false, ".Git.": false, ".git ": false,
		"git~1": false, "GIT~1": false, ".git::$INDEX_ALLOCATION": false, "a/b": false, "a\\b": false,
		"nul\x00": false, ".g\u200cit": false, strings.Repeat("x", 256): false,
	} {
		if got := safeName(name); got != want {
			t.Errorf("safeName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSafeSymlink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		link, target string
		want         bool
	}{
		{"l", "a.md", true},
		{"d/l", "../a.md", true},
		{"d/e/l", "../../x/y", true},
		{"d/l", "./x", true},
		{"l", "../x", false},
		{"d/l", "../../x", false},
		{"l", "/etc/passwd", false},
		{"l", "C:/x", false},
		{"l", "a\\..\\..\\x", false},
		{"l", "x/../y", false}, // x may be a symlink itself
		{"l", "x/../../y", false},
		{"l", ".git/config", false},
		{"l", "", false},
		{"../l", "x", false},
	} {
		if got := safeSymlink(tc.link, tc.target); got != tc.want {
			t.Errorf("safeSymlink(%q, %q) = %v, want %v", tc.link, tc.target, got, tc.want)
		}
	}
}

func TestCleanSubPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", ".": "", "docs/": "docs", "a//b/./c": "a/b/c"} {
		if got, ok := cleanSubPath(in); !ok || got != want {
			t.Errorf("cleanSubPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	// A leading slash and a backslash were accepted ("/docs/" as "docs", "a\\b"
	// as "a/b") until the rule moved to internal/naming, which refuses them
	// as the registry and the lock always did.
	for _, in := range []string{"..", "a/../b", ".git", "a/.git/b", "/docs/", "a\\b"} {
		if _, ok := cleanSubPath(in); ok {
			t.Errorf("cleanSubPath(%q) accepted", in)
		}
	}
}

// FuzzSafePath: an accepted path joined under a root stays under it and
// never names git metadata.
func FuzzSafePath(f *testing.F) {
	for _, s := range []string{"a/b.md", "../x", ".git/config", "a/./b", "a//b", "/etc", "a\\..\\b", "GIT~1/x", ".git."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !safePath(p) {
			return
		}
		root := filepath.FromSlash("/pkg/root")
		joined := filepath.Join(root, filepath.FromSlash(p))
		if !strings.HasPrefix(joined, root+string(filepath.Separator)) {
			t.Fatalf("safePath(%q) accepted, but it joins to %s", p, joined)
		}
		if path.Clean(p) != p {
			t.Fatalf("safePath(%q) accepted a path that is not clean", p)
		}
		for _, c := range strings.Split(p, "/") {
			if strings.EqualFold(strings.TrimRight(c, ". "), ".git") {
				t.Fatalf("safePath(%q) accepted a .git component", p)
			}
		}
	})
}

// FuzzSafeSymlink: an accepted link target, resolved from the link's folder,
// stays inside the package even if any component of it is itself a symlink
// (so ".." may only lead the target).
func FuzzSafeSymlink(f *testing.F) {
	for _, s := range [][2]string{{"l", "a"}, {"d/l", "../a"}, {"d/l", "../../a"}, {"l", "/etc/passwd"}, {"l", "x/../../y"}, {"a/b/l", "../.././c"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, link, target string) {
		if !safeSymlink(link, target) {
			return
		}
		if path.IsAbs(target) || strings.Contains(target, "\\") {
			t.Fatalf("safeSymlink(%q, %q) accepted an absolute or backslashed target", link, target)
		}
		resolved := path.Join(path.Dir(link), target)
		if resolved == ".." || strings.HasPrefix(resolved, "../") {
			t.Fatalf("safeSymlink(%q, %q) accepted; resolves to %s", link, target, resolved)
		}
		seenName := false
		for _, c := range strings.Split(target, "/") {
			switch c {
			case "", ".":
			case "..":
				if seenName {
					t.Fatalf("safeSymlink(%q, %q) accepted .. after a name", link, target)
				}
			default:
				seenName = true
			}
		}
	})
}
