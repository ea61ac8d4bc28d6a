package naming

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFilePath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"docs": true, "docs/api": true, "a.b/c": true, ".github/x.md": true, "a..b.md": true, "a/b:c": true, "ünï/cödé.md": true,
		"": false, ".": false, "/abs": false, "docs/": false, "a//b": false, "../x": false, "a/..": false,
		"a/../b": false, ".git/x": false, `a\b`: false, "./a": false, "a/.GIT/b": false, "a/.git./b": false,
		"GIT~1/x": false, ".git::$INDEX_ALLOCATION/x": false, ".g\u200cit/x": false, "a\x00b": false,
		"C:/x": false, "c:x": false, "a/...": false, strings.Repeat("x", 256): false,
	} {
		if got := CheckFilePath(p) == nil; got != want {
			t.Errorf("CheckFilePath(%q) ok = %v, want %v", p, got, want)
		}
	}
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"a.md": true, "README": true, ".github": true, ".gitignore": true, "git": true, "a:b": true,
		"": false, ".": false, "..": false, ".git": false, ".GIT": false, ".Git.": false, ".git ": false,
		"git~1": false, "GIT~1": false, ".git::$INDEX_ALLOCATION": false, "a/b": false, "a\\b": false,
		"nul\x00": false, ".g\u200cit": false, strings.Repeat("x", 256): false, ":x": false, "...": false,
	} {
		if got := CheckName(name) == nil; got != want {
			t.Errorf("CheckName(%q) ok = %v, want %v", name, got, want)
		}
	}
}

func TestCheckServedPath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"README.md", "docs/setup.md", "a/b/c d.md", "weird%zz.md", "100%.md", "ünï/cödé.md", "a..b.md"} {
		if err := CheckServedPath(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	for _, p := range []string{"", ".", "..", "../x", "a/../../b", "/etc/passwd", "a//b", "./a", "a/./b", ".git/config",
		"a/.hidden/b.md", ".github/x.md", "a\\b", "a\x00b", "a/", "C:/x"} {
		if err := CheckServedPath(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
}

func TestCleanSubPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", ".": "", "docs/": "docs", "docs/api/": "docs/api", "a//b/./c": "a/b/c", "./a": "a"} {
		if got, err := CleanSubPath(in); err != nil || got != want {
			t.Errorf("CleanSubPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"..", "a/../b", "a/../..", ".git", "a/.git/b", "a/.GIT", "/etc", "/docs/", `a\b`, "a\x00", "C:/x"} {
		if got, err := CleanSubPath(in); err == nil {
			t.Errorf("CleanSubPath(%q) = %q, accepted", in, got)
		}
	}
}

// pathSeeds are inputs for the path fuzz tests.
var pathSeeds = []string{"a/b.md", "../x", ".git/config", "a/./b", "a//b", "/etc", "a\\..\\b", "GIT~1/x", ".git.",
	"C:/x", "docs/", ".hidden/a.md", "a/..", "x/.Git /y"}

// checkLocal fails t unless p, accepted by what, joined under a root stays
// under it, is clean, and has no element a file system could take for .git.
func checkLocal(t *testing.T, what, p string) {
	t.Helper()
	if !filepath.IsLocal(p) || !filepath.IsLocal(filepath.FromSlash(p)) {
		t.Fatalf("%s accepted %q, which is not local", what, p)
	}
	root := filepath.FromSlash("/pkg/root")
	if joined := filepath.Join(root, filepath.FromSlash(p)); !strings.HasPrefix(joined, root+string(filepath.Separator)) {
		t.Fatalf("%s accepted %q, but it joins to %s", what, p, joined)
	}
	if path.Clean(p) != p {
		t.Fatalf("%s accepted %q, which is not clean", what, p)
	}
	for _, el := range strings.Split(p, "/") {
		if b := strings.ToLower(strings.TrimRight(el, ". ")); b == ".git" || strings.HasPrefix(b, ".git:") || b == "git~1" {
			t.Fatalf("%s accepted %q, with a .git element %q", what, p, el)
		}
	}
}

// FuzzCheckFilePath: an accepted path is local, clean and free of .git; a
// served path also has no hidden element.
func FuzzCheckFilePath(f *testing.F) {
	for _, s := range pathSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if CheckFilePath(p) == nil {
			checkLocal(t, "CheckFilePath", p)
		}
		if CheckServedPath(p) == nil {
			checkLocal(t, "CheckServedPath", p)
			if CheckFilePath(p) != nil {
				t.Fatalf("CheckServedPath accepted %q, which CheckFilePath refuses", p)
			}
			for _, el := range strings.Split(p, "/") {
				if strings.HasPrefix(el, ".") {
					t.Fatalf("CheckServedPath accepted %q, with hidden %q", p, el)
				}
			}
		}
	})
}

// FuzzCleanSubPath: an accepted sub-path cleans to "" or to a path
// CheckFilePath accepts, and cleaning is idempotent.
func FuzzCleanSubPath(f *testing.F) {
	for _, s := range pathSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := CleanSubPath(p)
		if err != nil {
			return
		}
		if clean == "" {
			if strings.Trim(strings.ReplaceAll(p, "/.", "/"), "/.") != "" {
				t.Fatalf("CleanSubPath(%q) = \"\"", p)
			}
			return
		}
		if err := CheckFilePath(clean); err != nil {
			t.Fatalf("CleanSubPath(%q) = %q, which CheckFilePath refuses: %v", p, clean, err)
		}
		checkLocal(t, "CleanSubPath", clean)
		if again, err := CleanSubPath(clean); err != nil || again != clean {
			t.Fatalf("CleanSubPath(%q) = %q, %v", clean, again, err)
		}
	})
}

func TestPathProblem(t *testing.T) {
	for _, tc := range []struct {
		p, want string
	}{
		{"a/b.md", ""},
		{strings.Repeat("a/", 256) + "x.md", ""},
		{strings.Repeat("a/", 257) + "x.md", "folders nested too deep (over 256)"},
		{strings.Repeat("x", 1024), ""},
		{strings.Repeat("x", 1025), "path too long (over 1024 bytes)"},
	} {
		if got := PathProblem(tc.p); got != tc.want {
			t.Errorf("PathProblem(%d bytes, %d folders) = %q; want %q", len(tc.p), strings.Count(tc.p, "/"), got, tc.want)
		}
	}
}
