package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// BenchmarkChanges500: `ctx changes` (workspace.Changes) of one package of
// 500 documents, 25 of them edited in one section each, 5 added and 5
// removed, with both trees in the cache (warm): the goal is 200 ms.
// It also checks that nothing is asked of the server.
func BenchmarkChanges500(b *testing.B) {
	if !gittest.Available() {
		b.Skip("git not installed")
	}
	tmp := b.TempDir()
	doc := func(i int, v string) string {
		var s strings.Builder
		fmt.Fprintf(&s, "# Page %d\n\nIntro of page %d. %s\n", i, i, strings.Repeat("Some text. ", 20))
		for k := range 6 {
			fmt.Fprintf(&s, "\n## Part %d\n\n%s %s\n", k, strings.Repeat("Documentation words here. ", 30), v)
		}
		return s.String()
	}
	files := map[string]string{}
	for i := range 500 {
		files[fmt.Sprintf("docs/s%d/page%d.md", i%10, i)] = doc(i, "v1")
	}
	src := filepath.Join(tmp, "src")
	gittest.NewRepo(b, src, files)
	root := filepath.Join(tmp, "srv")
	gittest.MustGit(b, tmp, "clone", "-q", "--bare", src, filepath.Join(root, "r.git"))
	srv, err := gittest.Serve(root, gittest.ServeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	proj := filepath.Join(tmp, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		b.Fatal(err)
	}
	o := Options{EngineOptions: gitengine.Options{CacheDir: filepath.Join(tmp, "cache")}}
	w, err := Init(proj, InitOptions{}, o)
	if err != nil {
		b.Fatal(err)
	}
	if r, err := w.Add(bg, []project.PackageSpec{{Alias: "api", Source: srv.URL + "/r.git", Path: "docs"}}, AddOptions{}); err != nil || r.Partial() {
		b.Fatalf("add: %v %+v", err, r)
	}
	w.Close()
	next := map[string]string{}
	for i := range 25 {
		p := fmt.Sprintf("docs/s%d/page%d.md", i%10, i)
		next[p] = strings.Replace(files[p], " v1\n", " v2\n", 1)
	}
	for i := 500; i < 505; i++ {
		next[fmt.Sprintf("docs/new/page%d.md", i)] = doc(i, "v2")
	}
	gittest.Commit(b, src, "v2", next)
	for i := 490; i < 495; i++ {
		gittest.MustGit(b, src, "rm", "-q", fmt.Sprintf("docs/s%d/page%d.md", i%10, i))
	}
	gittest.MustGit(b, src, "commit", "-q", "-m", "v2 removals")
	gittest.MustGit(b, src, "push", "-q", filepath.Join(root, "r.git"), "HEAD")
	w, err = Open(proj, o)
	if err != nil {
		b.Fatal(err)
	}
	if r, err := w.Update(bg, nil, UpdateOptions{}); err != nil || r.Partial() {
		b.Fatalf("update: %v %+v", err, r)
	}
	w.Close()

	srv.ResetCounters()
	for b.Loop() {
		r, err := OpenReadOnly(proj, o)
		if err != nil {
			b.Fatal(err)
		}
		set, err := r.Changes(bg, ChangesOptions{})
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
		if d, s := set.Packages[0].Counts(); d != 35 || s != 25 {
			b.Fatalf("%d documents, %d sections changed; want 35, 25 (%s)", d, s, set.Since)
		}
	}
	if n := srv.Requests(); n != 0 {
		b.Errorf("%d requests to the server, want none (both trees are in the cache)", n)
	}
}
