package indexer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bundleFilesVM are pages laid out as VictoriaMetrics' Hugo docs lay
// them (set 20): a bundle's _index.md holds the front matter and one
// include shortcode, its README.md the text, with no title of its own.
var bundleFilesVM = map[string]string{
	"guide/_index.md": "---\ntitle: How to delete or replace metrics\nweight: 7\n---\n{{% content \"README.md\" %}}\n",
	"guide/README.md": "## Purpose\n\nRemove series through the walrus endpoint.\n\n## Steps\n\nCall it.\n",
	// An H1 is a heading of the page the site shows under the bundle
	// page's title (VictoriaMetrics' stream aggregation text starts with
	// "# Features"); a front matter title is kept.
	"own/_index.md":    "---\ntitle: Bundle title\n---\n{{% content \"README.md\" %}}\n",
	"own/README.md":    "# Features\n\nText about narwhals.\n\n# Limitations\n\nSome.\n",
	"fm/_index.md":     "---\ntitle: Bundle title\n---\n{{< include \"notes.md\" >}}\n",
	"fm/notes.md":      "---\ntitle: Front matter title\n---\n## Sub\n\nText about okapis.\n",
	"single/_index.md": "---\ntitle: Single-node version\n---\n\n{{% content \"body.md\" %}}\n\n",
	"single/body.md":   "---\nbuild:\n  render: never\n---\nVictoriaMetrics is fast.\n\n## Prominent features\n\nMany.\n",
	// An _index.md that is a page of its own, or includes another file,
	// titles no sibling.
	"other/_index.md":   "---\ntitle: Section\n---\nSome prose about the section.\n\n{{% content \"README.md\" %}}\n",
	"other/README.md":   "## Overview\n\nText about quokkas.\n",
	"another/_index.md": "---\ntitle: Another\n---\n{{% content \"README.md\" %}}\n",
	"another/README.md": "## Overview\n\nText.\n",
	"another/extra.md":  "## Extra\n\nText.\n",
	// A leaf bundle's index.md.
	"leaf/index.md": "---\ntitle: Leaf page\n---\n{{< readfile file=\"text.md\" >}}\n",
	"leaf/text.md":  "## First section\n\nText.\n",
}

func bundleTitles(t *testing.T, dir string) map[string]string {
	t.Helper()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	docs, err := r.Documents("vm")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs {
		out[d.Path] = d.Title
	}
	return out
}

// TestBundleTitle (qset24b, set 20): a document with no front matter
// title that its folder's _index.md or index.md
// includes whole ("{{% content "README.md" %}}") takes that page's title,
// as the site shows it: VictoriaMetrics' single-node page was titled
// "Prominent features" and a guide "Purpose". The title is searched
// (a word only the bundle page's title has finds the text), and follows
// the bundle page when it changes or goes.
func TestBundleTitle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "vm", bundleFilesVM)
	pkgs := []Package{{Alias: "vm", Rev: strings.Repeat("1", 40)}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"guide/README.md":   "How to delete or replace metrics",
		"own/README.md":     "Bundle title",
		"fm/notes.md":       "Front matter title",
		"single/body.md":    "Single-node version",
		"other/README.md":   "Overview",
		"another/README.md": "Another",
		"another/extra.md":  "Extra",
		"leaf/text.md":      "Leaf page",
	}
	got := bundleTitles(t, dir)
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: title %q, want %q", p, got[p], w)
		}
	}
	search := func(q string) []string {
		t.Helper()
		r, err := OpenReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		hits, err := r.Search(ctx, Query{Text: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, h := range hits {
			paths = append(paths, h.Path)
		}
		return paths
	}
	if p := search("replace"); !slices.Contains(p, "guide/README.md") {
		t.Errorf("search replace: %v, want guide/README.md (its bundle title's word)", p)
	}

	// The bundle page retitled: its README follows at the next sync.
	writeFiles(t, dir, "vm", map[string]string{"guide/_index.md": "---\ntitle: Deleting series\n---\n{{% content \"README.md\" %}}\n"})
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := bundleTitles(t, dir)["guide/README.md"]; got != "Deleting series" {
		t.Errorf("after the bundle page's title changed: %q, want %q", got, "Deleting series")
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
		t.Errorf("after the bundle page's title changed: freshness %+v %v, want fresh", f, err)
	}
	r.Close()

	// A landing that touches the bundle page: the carried walk stamps
	// the README with it again (bundleStamps), the README follows.
	writeFiles(t, dir, "vm", map[string]string{"guide/_index.md": "---\ntitle: Removing series\n---\n{{% content \"README.md\" %}}\n"})
	s, err := StartSync(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.LandedFiles(Package{Alias: "vm"}, []string{"guide/_index.md"})
	if _, err := s.Finish(ctx, pkgs); err != nil {
		t.Fatal(err)
	}
	if got := bundleTitles(t, dir)["guide/README.md"]; got != "Removing series" {
		t.Errorf("after a landing touched the bundle page: %q, want %q", got, "Removing series")
	}

	// A landing that touches the README only (carried walk): it keeps
	// the bundle page's title.
	writeFiles(t, dir, "vm", map[string]string{"guide/README.md": "## Purpose\n\nRemove series through the walrus endpoint, again.\n"})
	s, err = StartSync(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.LandedFiles(Package{Alias: "vm"}, []string{"guide/README.md"})
	if _, err := s.Finish(ctx, pkgs); err != nil {
		t.Fatal(err)
	}
	if got := bundleTitles(t, dir)["guide/README.md"]; got != "Removing series" {
		t.Errorf("after a landing touched the README: %q, want %q", got, "Removing series")
	}
	r, err = OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
		t.Errorf("after a landing touched the README: freshness %+v %v, want fresh", f, err)
	}
	r.Close()

	// The bundle page gone: the README's own first heading again.
	if err := os.Remove(filepath.Join(dir, "packages", "vm", "guide", "_index.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := bundleTitles(t, dir)["guide/README.md"]; got != "Purpose" {
		t.Errorf("after the bundle page was removed: %q, want %q", got, "Purpose")
	}
}

// TestIncludePage pins which bundle pages are include pages (includeOf).
func TestIncludePage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		page, title, target string
	}{
		{"---\ntitle: T\n---\n{{% content \"README.md\" %}}\n", "T", "README.md"},
		{"---\ntitle: T\n---\n\n  {{< content \"sub/a.md\" >}}  \n\n", "T", "sub/a.md"},
		{"---\ntitle: T\n---\n{{< include \"a.md\" >}}\n", "T", "a.md"},
		{"---\ntitle: T\n---\n{{< readfile file=\"a.md\" >}}\n", "T", "a.md"},
		{"+++\ntitle = \"T\"\n+++\n{{% content \"a.md\" %}}\n", "T", "a.md"},
		{"---\npage_title: P\n---\n{{% content \"a.md\" %}}\n", "P", "a.md"},
		// not an include page: no title, text beside the shortcode, two
		// shortcodes, another shortcode, a path out of the folder.
		{"{{% content \"a.md\" %}}\n", "", ""},
		{"---\ntitle: T\n---\nText.\n{{% content \"a.md\" %}}\n", "", ""},
		{"---\ntitle: T\n---\n{{% content \"a.md\" %}}\n{{% content \"b.md\" %}}\n", "", ""},
		{"---\ntitle: T\n---\n{{< youtube \"a.md\" >}}\n", "", ""},
		{"---\ntitle: T\n---\n{{% content \"../a.md\" %}}\n", "", ""},
		{"---\ntitle: T\n---\n{{% content \"/a.md\" %}}\n", "", ""},
		{"---\ntitle: [broken\n---\n{{% content \"a.md\" %}}\n", "", ""},
		// (review of qset24b) delimiters that do not pair are no shortcode
		// to Hugo; a commented-out one renders as text; an include with
		// more arguments than the file may include part of it.
		{"---\ntitle: T\n---\n{{< content \"a.md\" %}}\n", "", ""},
		{"---\ntitle: T\n---\n{{% content \"a.md\" >}}\n", "", ""},
		{"---\ntitle: T\n---\n{{</* content \"a.md\" */>}}\n", "", ""},
		{"---\ntitle: T\n---\n{{< readfile file=\"a.md\" lines=\"1-3\" >}}\n", "", ""},
	} {
		title, target := includeOf([]byte(c.page))
		if title != c.title || target != c.target {
			t.Errorf("includeOf(%q) = %q, %q; want %q, %q", c.page, title, target, c.title, c.target)
		}
	}
}
