package workspace

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestOwn21LLMSPagesDifferingInCase (round 20's leftover): an llms.txt
// whose pages' paths differ only in case (/Guide.md and /guide.md) made
// two files on Linux and one on macOS and Windows, the later page
// overwriting the first there. The rule is applied on every system: the
// first page keeps its path, the later is skipped with a warning naming
// both, so the package is the same everywhere.
func TestOwn21LLMSPagesDifferingInCase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pages := map[string]string{
		"/llms.txt":      "# Docs\n\n- [G](/docs/Guide.md)\n- [g](/docs/guide.md)\n- [A](/API/a.md)\n- [b](/api/b.md)\n- [C](/c.md)\n",
		"/docs/Guide.md": "# Guide\n\nUpper.\n",
		"/docs/guide.md": "# guide\n\nLower.\n",
		"/API/a.md":      "# A\n",
		"/api/b.md":      "# B\n",
		"/c.md":          "# C\n",
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte(body))
	}))
	t.Cleanup(web.Close)
	w := f.open(f.project)
	defer w.Close()
	spec := project.PackageSpec{Alias: "web", Kind: project.KindHTTPS, Source: web.URL + "/llms.txt", AllowPrivateNetwork: true}
	f.must(w.Add(bg, []project.PackageSpec{spec}, AddOptions{}))
	pkg := w.pkgDir("web")
	var got []string
	_ = filepath.Walk(pkg, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(pkg, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	seen := map[string]string{}
	for _, p := range got {
		k := strings.ToLower(p)
		if q, ok := seen[k]; ok {
			t.Errorf("%s and %s differ only in case: one file on macOS and Windows", q, p)
		}
		seen[k] = p
	}
	if b, err := os.ReadFile(filepath.Join(pkg, "docs", "Guide.md")); err != nil || !strings.Contains(string(b), "Upper") {
		t.Errorf("the first page lost its path: %q, %v (files %v)", b, err, got)
	}
	if _, err := os.Stat(filepath.Join(pkg, "API", "a.md")); err != nil {
		t.Errorf("API/a.md: %v (files %v)", err, got)
	}
	log := f.log.String()
	if !strings.Contains(log, "docs/guide.md") || !strings.Contains(log, "docs/Guide.md") || !strings.Contains(log, "api") {
		t.Errorf("no warning naming the skipped pages and the kept ones:\n%s", log)
	}
}
