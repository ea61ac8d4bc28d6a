package mcpserver

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckRelPath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"README.md", "docs/setup.md", "a/b/c d.md", "weird%zz.md", "100%.md", "ünï/cödé.md", "a..b.md"} {
		if _, err := checkRelPath(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	for _, p := range []string{"", ".", "..", "../x", "a/../../b", "/etc/passwd", "a//b", "./a", "a/./b", ".git/config",
		"a/.hidden/b.md", "%2e%2e/x", "%2E%2E%2Fx", "%252e%252e/x", "a\\b", "a\x00b", "a/", "C:/x", "%2fetc/passwd", "a/%2e/b",
		// Windows' 8.3 name of .git, and names a file system reduces to nothing.
		"GIT~1/config", "docs/git~1/HEAD", "%47IT~1/config", "a/:x.md", "a/.../b.md"} {
		if _, err := checkRelPath(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
}

func TestCheckAlias(t *testing.T) {
	t.Parallel()
	for _, a := range []string{"guide", "api-v2", "a.b_c"} {
		if err := checkAlias(a); err != nil {
			t.Errorf("%q refused: %v", a, err)
		}
	}
	for _, a := range []string{"", ".", "..", ".git", "_x", "-x", "a/b", "a\\b", "a\x00", "a%2fb", "guide ", "a b", "ä", strings.Repeat("x", 65)} {
		if err := checkAlias(a); err == nil {
			t.Errorf("%q accepted", a)
		}
	}
}

// FuzzCheckRelPath: whatever it accepts is local, clean, has no hidden
// component, and decodes to something equally harmless.
func FuzzCheckRelPath(f *testing.F) {
	for _, s := range []string{"docs/a.md", "../x", "%2e%2e/x", ".git/config", "a\\b", "/abs", "a/b/../c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := checkRelPath(p)
		if err != nil {
			return
		}
		for _, q := range []string{p, clean} {
			if !filepath.IsLocal(q) || strings.ContainsAny(q, "\\\x00") || strings.HasPrefix(q, "/") {
				t.Fatalf("accepted %q (%q): not local", p, q)
			}
			for _, el := range strings.Split(q, "/") {
				if el == "" || el == "." || el == ".." || strings.HasPrefix(el, ".") {
					t.Fatalf("accepted %q: component %q", p, el)
				}
			}
		}
		if dec, err := url.PathUnescape(clean); err == nil && dec != clean {
			if _, err := checkRelPath(dec); err != nil {
				t.Fatalf("accepted %q, whose decoding %q is refused", p, dec)
			}
		}
	})
}

func TestNearest(t *testing.T) {
	t.Parallel()
	cands := []string{"docs/setup.md", "docs/install.md", "README.md", "api/reference.md"}
	for want, best := range map[string]string{"docs/setpu.md": "docs/setup.md", "setup.md": "docs/setup.md", "readme.md": "README.md", "reference.md": "api/reference.md"} {
		got := nearest(want, cands, 3)
		if len(got) == 0 || got[0] != best {
			t.Errorf("nearest(%q) = %q, want %q first", want, got, best)
		}
	}
	if got := nearest("zzzzzzzzzzzz.md", cands, 3); len(got) != 0 {
		t.Errorf("nearest of nonsense = %q", got)
	}
}

func TestParseDocURI(t *testing.T) {
	t.Parallel()
	a, p, err := parseDocURI("ctx://packages/guide/docs/a%20b.md")
	if err != nil || a != "guide" || p != "docs/a b.md" {
		t.Errorf("got %q %q %v", a, p, err)
	}
	for _, u := range []string{"ctx://packages/guide", "ctx://packages/guide/", "ctx://index", "file:///etc/passwd"} {
		if _, _, err := parseDocURI(u); err == nil {
			t.Errorf("%q parsed", u)
		}
	}
	if uri := docURI("guide", "docs/a b#c.md"); uri != "ctx://packages/guide/docs/a%20b%23c.md" {
		t.Errorf("docURI = %q", uri)
	}
}

// served is the one hidden-file rule of listings and answers: a path with
// a hidden component, or one that could leave the package, is never shown.
func TestServedRule(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"README.md":          true,
		"docs/setup.md":      true,
		"docs/.hidden/x.md":  false,
		".git/config":        false,
		".state/x.md":        false,
		"docs/.draft.md":     false,
		"../outside.md":      false,
		"/etc/passwd":        false,
		"docs//x.md":         false,
		"docs\\x.md":         false,
		"":                   false,
		"a/./b.md":           false,
		"docs/not.hidden.md": true,
	} {
		if got := served(p); got != want {
			t.Errorf("served(%q) = %v, want %v", p, got, want)
		}
	}
}

// bestFirst is the one cut of both "did you mean" lists (nearest's names,
// nearestPath's paths): at most n, and none past noiseOver of the best.
func TestBestFirst(t *testing.T) {
	t.Parallel()
	type c struct {
		s string
		d int
	}
	dist := func(x c) int { return x.d }
	name := func(x c) string { return x.s }
	sorted := []c{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}}
	for _, tc := range []struct {
		n    int
		want []string
	}{{0, nil}, {2, []string{"a", "b"}}, {9, []string{"a", "b", "c"}}} {
		if got := bestFirst(sorted, tc.n, dist, name); !slices.Equal(got, tc.want) {
			t.Errorf("bestFirst(n=%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := bestFirst([]c{{"x", 0}, {"y", 1}, {"z", 2}}, 3, dist, name); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("best 0: %q, want x and y (2 > 2×0+1)", got)
	}
	// Both callers cut so: an exact name leaves out one two edits off.
	if got := nearest("guide", []string{"guide", "guido", "gxidx"}, 3); !slices.Equal(got, []string{"guide", "guido"}) {
		t.Errorf("nearest = %q, want guide and guido", got)
	}
	if got := nearestPath("docs/setup.md", []string{"docs/setup.md", "docs/setap.md", "docs/sxtap.md"}, 3); !slices.Equal(got, []string{"docs/setup.md", "docs/setap.md"}) {
		t.Errorf("nearestPath = %q, want docs/setup.md and docs/setap.md", got)
	}
}
