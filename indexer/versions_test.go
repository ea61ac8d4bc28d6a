package indexer

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestVersionFolder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		seg, label string
		ok         bool
	}{
		{"v1.13", "v1.13", true},
		{"1.13", "1.13", true},
		{"version-3.13.x", "3.13.x", true},
		{"version-v3.13.x", "v3.13.x", true},
		{"v3.6.x", "v3.6.x", true},
		{"V2", "v2", true}, // a "v" makes one number a version
		{"2", "", false},   // a bare number is not
		{"v", "", false},
		{"vendor", "", false},
		{"v1.x.2", "", false},
		{"1..2", "", false},
		{"main", "", false},
		{"docs", "", false},
	} {
		label, _, ok := versionFolder(c.seg)
		if ok != c.ok || label != c.label {
			t.Errorf("versionFolder(%q) = %q, %v; want %q, %v", c.seg, label, ok, c.label, c.ok)
		}
	}
}

// copiesOf returns, for each path of pages (path → title, for the
// reader), "label" when it is a copy (with "*" when it is a head copy) and
// "" when it is not.
func copiesOf(pages map[string]string) map[string]string {
	paths := slices.Sorted(maps.Keys(pages))
	var titles []string
	for _, p := range paths {
		titles = append(titles, pages[p])
	}
	return copiesIn(pages, paths, titles, nil)
}

// copiesIn is copiesOf's answer for pages (their paths, titles and
// summaries: nil when not known).
func copiesIn[V any](pages map[string]V, paths, titles, summaries []string) map[string]string {
	var sums map[string][]string
	if summaries != nil {
		sums = map[string][]string{"p": summaries}
	}
	vm := versionFamilies(map[string][]string{"p": paths}, map[string][]string{"p": titles}, sums)
	out := map[string]string{}
	for p := range pages {
		if c := vm.copies["p\x00"+p]; c != nil {
			out[p] = c.label
			if c.head {
				out[p] += "*"
			}
		} else {
			out[p] = ""
		}
	}
	return out
}

func TestVersionFamilies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		pages map[string]string // path → title
		want  map[string]string // path → label ("*": head), "" not a copy
	}{
		{
			name: "Docusaurus: docs beside versioned_docs",
			pages: map[string]string{
				"website/docs/install.md":                           "Install",
				"website/docs/audit.md":                             "Audit",
				"website/docs/new.md":                               "New",
				"website/versioned_docs/version-v3.13.x/install.md": "Install",
				"website/versioned_docs/version-v3.13.x/audit.md":   "Audit",
				"website/versioned_docs/version-v3.9.x/install.md":  "Install",
				"website/versioned_docs/version-v3.9.x/audit.md":    "Audit",
				"website/blog/v1.md":                                "Blog",
			},
			want: map[string]string{
				"website/docs/install.md":                           "current*",
				"website/docs/audit.md":                             "current*",
				"website/docs/new.md":                               "", // no copy
				"website/versioned_docs/version-v3.13.x/install.md": "v3.13.x*",
				"website/versioned_docs/version-v3.13.x/audit.md":   "v3.13.x*",
				"website/versioned_docs/version-v3.9.x/install.md":  "v3.9.x", // 9 < 13: by number
				"website/versioned_docs/version-v3.9.x/audit.md":    "v3.9.x",
				"website/blog/v1.md":                                "",
			},
		},
		{
			name: "Hugo: main beside version folders",
			pages: map[string]string{
				"site/content/docs/main/backup.md":  "Backup",
				"site/content/docs/main/hooks.md":   "Hooks",
				"site/content/docs/v1.13/backup.md": "Backup",
				"site/content/docs/v1.13/hooks.md":  "Hooks",
				"site/content/docs/v1.10/backup.md": "Backup",
				"site/content/docs/v1.10/hooks.md":  "Hooks",
				"site/content/posts/release.md":     "Release",
			},
			want: map[string]string{
				"site/content/docs/main/backup.md":  "main*",
				"site/content/docs/main/hooks.md":   "main*",
				"site/content/docs/v1.13/backup.md": "v1.13*",
				"site/content/docs/v1.13/hooks.md":  "v1.13*",
				"site/content/docs/v1.10/backup.md": "v1.10",
				"site/content/docs/v1.10/hooks.md":  "v1.10",
				"site/content/posts/release.md":     "",
			},
		},
		{
			name: "docs/P beside docs/vX.Y/P, a page dropped from the latest",
			pages: map[string]string{
				"docs/a.md":        "A",
				"docs/b.md":        "B",
				"docs/1.12/a.md":   "A",
				"docs/1.12/b.md":   "B",
				"docs/1.11/a.md":   "A",
				"docs/1.11/b.md":   "B",
				"docs/1.11/old.md": "Old",
				"docs/1.10/old.md": "Old",
				"docs/1.10/a.md":   "A",
				"docs/1.9/x.md":    "X",
			},
			want: map[string]string{
				"docs/a.md":        "current*",
				"docs/b.md":        "current*",
				"docs/1.12/a.md":   "1.12*",
				"docs/1.12/b.md":   "1.12*",
				"docs/1.11/a.md":   "1.11",
				"docs/1.11/b.md":   "1.11",
				"docs/1.11/old.md": "1.11*", // its newest copy
				"docs/1.10/old.md": "1.10",
				"docs/1.10/a.md":   "1.10",
				"docs/1.9/x.md":    "", // no copy
			},
		},
		{
			name: "look-alike: a v2 API folder of other pages",
			pages: map[string]string{
				"api/v1/users.md":  "Users",
				"api/v1/index.md":  "API",
				"api/v2/orders.md": "Orders",
				"api/v2/index.md":  "API", // one page in common: not copies
				"api/index.md":     "API reference",
			},
			want: map[string]string{
				"api/v1/users.md": "", "api/v1/index.md": "", "api/v2/orders.md": "", "api/v2/index.md": "", "api/index.md": "",
			},
		},
	} {
		got := copiesOf(c.pages)
		for p, w := range c.want {
			if got[p] != w {
				t.Errorf("%s: %s is %q, want %q", c.name, p, got[p], w)
			}
		}
	}
}

func TestQueryVersions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"mutation in gatekeeper 3.7", []string{"3.7"}},
		{"metrics in v3.10?", []string{"3.10"}},
		{"upgrade to 1.13.2", []string{"1.13", "1.13.2"}},
		{"1.16.x", []string{"1.16"}},
		{"install v2 api", nil}, // one number: not a release's
		{"how do I install", nil},
	} {
		var got []string
		for f := range queryVersions(splitWords(c.q)) {
			got = append(got, f)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("queryVersions(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

// TestVersionedSearch searches a package that keeps a copy of its pages
// per release: the best copy of a page is an old release's (its text
// says the query's words most often), yet the current copy comes first,
// once, naming the others; a query naming a version gets that version's
// copy; a look-alike version folder is ranked as before.
func TestVersionedSearch(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "velero", map[string]string{
		"docs/main/backup.md":   "# Backup\n\nrun a backup of the cluster, then read its logs, its phase and the warnings of each item it saved\n",
		"docs/main/restore.md":  "# Restore\n\nrestore from a backup\n",
		"docs/v1.13/backup.md":  "# Backup\n\nrun a backup of the cluster, then read its logs, its phase and the warnings of each item it saved\n",
		"docs/v1.13/restore.md": "# Restore\n\nrestore from a backup\n",
		"docs/v1.10/backup.md":  "# Backup\n\nrun a backup of the cluster\n",
		"docs/v1.10/restore.md": "# Restore\n\nrestore from a backup\n",
		"docs/schedule.md":      "# Schedule\n\nschedule a backup every night\n",
		"api/v2/backup.md":      "# Backup API\n\nthe backup backup backup endpoint\n",
		"api/v1/other.md":       "# Other\n\nsomething else\n",
		// Release notes in folders named by versions: each its own page.
		"changelog/v1.2/notes.md":   "# Release 1.2\n\nthe backup fix\n",
		"changelog/v1.2/upgrade.md": "# Upgrade to 1.2\n\nsteps\n",
		"changelog/v1.3/notes.md":   "# Release 1.3\n\nthe backup fix again\n",
		"changelog/v1.3/upgrade.md": "# Upgrade to 1.3\n\nsteps\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "velero"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range []struct {
		q     string
		chunk bool
		first string
		vers  string
	}{
		{"backup cluster", false, "docs/main/backup.md", "v1.13,v1.10"},
		{"backup cluster", true, "docs/main/backup.md", "v1.13,v1.10"},
		{"backup cluster 1.10", false, "docs/v1.10/backup.md", "main,v1.13"},
		{"backup cluster v1.13", false, "docs/v1.13/backup.md", "main,v1.10"},
		{"backup endpoint api", false, "api/v2/backup.md", ""},
	} {
		hits, err := r.Search(ctx, Query{Text: c.q, BestPerDocument: !c.chunk})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatalf("%q: no hits", c.q)
		}
		if hits[0].Path != c.first || strings.Join(hits[0].Versions, ",") != c.vers {
			t.Errorf("%q (chunks %v): first %s %v, want %s %s", c.q, c.chunk, hits[0].Path, hits[0].Versions, c.first, c.vers)
		}
		var paths []string
		for _, h := range hits {
			if strings.HasPrefix(h.Path, "docs/") && strings.HasSuffix(h.Path, "/backup.md") {
				paths = append(paths, h.Path)
			}
			if h.Score > hits[0].Score {
				t.Errorf("%q: %s scored %v above the first's %v", c.q, h.Path, h.Score, hits[0].Score)
			}
		}
		if len(paths) != 1 {
			t.Errorf("%q: copies of backup.md %v, want one", c.q, paths)
		}
	}
	hits, err := r.Search(ctx, Query{Text: "release notes backup fix", Packages: []string{"velero"}, Paths: []string{"changelog/"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || len(hits[0].Versions)+len(hits[1].Versions) > 0 {
		t.Errorf("release notes per version: %+v, want both pages, no versions", hits)
	}
}

// TestFuseOneCopy: the lexical and the semantic halves each give one copy
// of a versioned page, perhaps not the same one; the fused list keeps the
// first, in both modes.
func TestFuseOneCopy(t *testing.T) {
	t.Parallel()
	h := func(path, family string, n int) Hit {
		return Hit{Package: "p", Path: path, Score: float64(10 - n), id: chunkID("p", path, n), family: family}
	}
	lex := []Hit{h("docs/main/a.md", "F", 0), h("docs/b.md", "", 1)}
	sem := []Hit{h("docs/v1.10/a.md", "F", 0), h("docs/c.md", "", 1)}
	for _, best := range []bool{true, false} {
		var got []string
		for _, x := range fuse(lex, sem, Fusion{Method: "rrf", Weight: 0.3}, best, 10) {
			got = append(got, x.Path)
		}
		if slices.Contains(got, "docs/v1.10/a.md") || !slices.Contains(got, "docs/main/a.md") || len(got) != 3 {
			t.Errorf("best per document %v: %v, want docs/main/a.md, docs/b.md and docs/c.md", best, got)
		}
	}
}

// TestVersionFamiliesFolderIndexPages: the pages every folder may have (an
// index.md and a README.md, Hugo's _index.md) do not make two API folders
// of other pages copies of each other (review21: with index.md and
// README.md in both, v1's were hidden behind v2's).
func TestVersionFamiliesFolderIndexPages(t *testing.T) {
	t.Parallel()
	got := copiesOf(map[string]string{
		"api/v1/index.md": "", "api/v1/README.md": "", "api/v1/_index.md": "", "api/v1/users.md": "",
		"api/v2/index.md": "", "api/v2/README.md": "", "api/v2/_index.md": "", "api/v2/orders.md": "",
	})
	for p, l := range got {
		if l != "" {
			t.Errorf("%s is a copy (%q); want none: the folders share only their index pages", p, l)
		}
	}
	// Two shared pages beside the index pages still make copies.
	got = copiesOf(map[string]string{
		"docs/v1.1/index.md": "", "docs/v1.1/a.md": "", "docs/v1.1/b.md": "",
		"docs/v1.2/index.md": "", "docs/v1.2/a.md": "", "docs/v1.2/b.md": "",
	})
	if got["docs/v1.1/index.md"] != "v1.1" || got["docs/v1.2/a.md"] != "v1.2*" {
		t.Errorf("release copies with index pages: %v", got)
	}
}

// TestVersionsBounded: a page kept in thousands of version folders (a
// hostile or odd repository) names at most maxOtherVersions of them, the
// newest, and a deep path is placed without a string per level.
func TestVersionsBounded(t *testing.T) {
	t.Parallel()
	var paths []string
	for i := range 3000 {
		for _, p := range []string{"a.md", "b.md"} {
			paths = append(paths, fmt.Sprintf("docs/v1.%d/%s", i, p))
		}
	}
	vm := versionFamilies(map[string][]string{"p": paths}, nil, nil)
	c := vm.copies["p\x00docs/v1.0/a.md"]
	if c == nil {
		t.Fatal("docs/v1.0/a.md is not a copy")
	}
	o := vm.others(c)
	if len(o) != maxOtherVersions || o[0] != "v1.2999" || o[len(o)-1] != fmt.Sprintf("v1.%d", 3000-maxOtherVersions) {
		t.Errorf("others: %d labels %v…, want the %d newest", len(o), o[:min(len(o), 3)], maxOtherVersions)
	}
}

// TestSlotOfDeepPath: a path thousands of folders deep is placed among
// the version folders without a string per level (it was one a level, a
// cost the square of the path's length). Not parallel: AllocsPerRun.
func TestSlotOfDeepPath(t *testing.T) {
	deep := strings.Repeat("d/", 2000) + "v1.2/x/" + strings.Repeat("e/", 2000) + "p.md"
	parents := map[string]bool{"x": true}
	if n := testing.AllocsPerRun(5, func() { slotOf(deep, parents) }); n > 50 {
		t.Errorf("slotOf a path 4000 folders deep: %v allocations, want a few", n)
	}
	s, ok := slotOf("a/versioned_docs/version-1.2/b/p.md", map[string]bool{"a/docs": true})
	if !ok || s.parent != "a/docs" || s.label != "1.2" || s.rest != "b/p.md" {
		t.Errorf("slotOf a Docusaurus copy: %+v %v", s, ok)
	}
	s, ok = slotOf("docs/main/p.md", map[string]bool{"docs": true})
	if !ok || s.parent != "docs" || s.label != "main" || s.rest != "p.md" {
		t.Errorf("slotOf a current folder's page: %+v %v", s, ok)
	}
	s, ok = slotOf("docs/p.md", map[string]bool{"docs": true})
	if !ok || s.parent != "docs" || s.label != currentLabel || s.rest != "p.md" {
		t.Errorf("slotOf an unversioned page: %+v %v", s, ok)
	}
	s, ok = slotOf("p.md", map[string]bool{"": true})
	if !ok || s.parent != "" || s.label != currentLabel || s.rest != "p.md" {
		t.Errorf("slotOf a top page: %+v %v", s, ok)
	}
}

// TestFuseHeadCopy: when the semantic half ranks an older release's copy
// of a page above the lexical half's copy (the current one, by the ordering
// rule), the fused list gives the lexical half's copy, with both halves'
// evidence, not the older copy (review21: it gave v1.10's).
func TestFuseHeadCopy(t *testing.T) {
	t.Parallel()
	h := func(path, family string, n int) Hit {
		return Hit{Package: "p", Path: path, Score: float64(10 - n), id: chunkID("p", path, 0), family: family}
	}
	lex := []Hit{h("docs/b.md", "", 0), h("docs/main/a.md", "F", 1)}
	sem := []Hit{h("docs/v1.10/a.md", "F", 0), h("docs/c.md", "", 1)}
	for _, best := range []bool{true, false} {
		out := fuse(lex, sem, Fusion{Method: "rrf", Weight: 0.7}, best, 10)
		var got []string
		for _, x := range out {
			got = append(got, x.Path)
		}
		if len(got) != 3 || got[0] != "docs/main/a.md" {
			t.Errorf("best per document %v: %v, want docs/main/a.md first (both halves' evidence), then docs/c.md and docs/b.md", best, got)
		}
	}
}

// TestVersionFamiliesLookAlikes: folders named like versions that are not
// copies of each other (round 21's open false positives): numbered
// chapters that share a few page names, dated folders of notes that share
// every name, and chapters whose shared pages have other titles. Each was
// taken for a release family before.
func TestVersionFamiliesLookAlikes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		pages map[string]string // path → title
	}{
		{
			name: "numbered chapters: two shared names of four pages each",
			pages: map[string]string{
				"book/1.1/intro.md": "Introduction", "book/1.1/summary.md": "Summary", "book/1.1/variables.md": "Variables", "book/1.1/types.md": "Types",
				"book/1.2/intro.md": "Introduction", "book/1.2/summary.md": "Summary", "book/1.2/loops.md": "Loops", "book/1.2/functions.md": "Functions",
				"book/2.1/intro.md": "Introduction", "book/2.1/summary.md": "Summary", "book/2.1/errors.md": "Errors", "book/2.1/panics.md": "Panics",
			},
		},
		{
			name: "numbered chapters: the shared names titled for their chapter",
			pages: map[string]string{
				"course/1.1/intro.md": "Getting around the shell", "course/1.1/exercises.md": "Exercises: the shell", "course/1.1/index.md": "1.1",
				"course/1.2/intro.md": "Files and folders", "course/1.2/exercises.md": "Exercises: files", "course/1.2/index.md": "1.2",
			},
		},
		{
			name: "dotted dates: meeting notes per month",
			pages: map[string]string{
				"meetings/2023.12/notes.md": "notes", "meetings/2023.12/agenda.md": "agenda",
				"meetings/2024.01/notes.md": "notes", "meetings/2024.01/agenda.md": "agenda",
				"meetings/2024.02/notes.md": "notes", "meetings/2024.02/agenda.md": "agenda",
			},
		},
		{
			name: "dotted dates with days: a blog",
			pages: map[string]string{
				"blog/2024.01.15/post.md": "post", "blog/2024.01.15/images.md": "images",
				"blog/2024.03.02/post.md": "post", "blog/2024.03.02/images.md": "images",
			},
		},
	} {
		for p, l := range copiesOf(c.pages) {
			if l != "" {
				t.Errorf("%s: %s is a copy (%q); want none", c.name, p, l)
			}
		}
	}
	// A release kept as "v2024.01" (prefixed) or CalVer "2024.1" still is.
	got := copiesOf(map[string]string{
		"docs/v2024.01/a.md": "A", "docs/v2024.01/b.md": "B",
		"docs/v2023.12/a.md": "A", "docs/v2023.12/b.md": "B",
		"site/2024.1/a.md": "A", "site/2024.1/b.md": "B",
		"site/2023.3/a.md": "A", "site/2023.3/b.md": "B",
	})
	for p, want := range map[string]string{"docs/v2024.01/a.md": "v2024.01*", "docs/v2023.12/b.md": "v2023.12", "site/2024.1/a.md": "2024.1*", "site/2023.3/b.md": "2023.3"} {
		if got[p] != want {
			t.Errorf("%s is %q, want %q", p, got[p], want)
		}
	}
}

// A release that adds more pages than it shares with the one before it is
// still a release: docs grow release by release.
func TestVersionFamiliesGrowingReleases(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		pages map[string]string
		want  map[string]string
	}{
		{
			name: "two releases, the newest twice the size",
			pages: map[string]string{
				"docs/v1/a.md": "A", "docs/v1/b.md": "B",
				"docs/v2/a.md": "A", "docs/v2/b.md": "B", "docs/v2/c.md": "C", "docs/v2/d.md": "D",
			},
			want: map[string]string{"docs/v1/a.md": "v1", "docs/v2/a.md": "v2*", "docs/v2/b.md": "v2*", "docs/v2/c.md": ""},
		},
		{
			name: "three releases: the newest stays the head",
			pages: map[string]string{
				"docs/v1.0/a.md": "A", "docs/v1.0/b.md": "B", "docs/v1.0/c.md": "C",
				"docs/v1.1/a.md": "A", "docs/v1.1/b.md": "B", "docs/v1.1/c.md": "C", "docs/v1.1/d.md": "D",
				"docs/v2.0/a.md": "A", "docs/v2.0/b.md": "B", "docs/v2.0/c.md": "C", "docs/v2.0/d.md": "D",
				"docs/v2.0/e.md": "E", "docs/v2.0/f.md": "F", "docs/v2.0/g.md": "G", "docs/v2.0/h.md": "H", "docs/v2.0/i.md": "I",
			},
			want: map[string]string{"docs/v1.0/a.md": "v1.0", "docs/v1.1/d.md": "v1.1", "docs/v2.0/a.md": "v2.0*", "docs/v2.0/d.md": "v2.0*", "docs/v2.0/e.md": ""},
		},
		{
			name: "a chapter that keeps only the shared names of the one before is no release",
			pages: map[string]string{
				"book/1.1/intro.md": "Introduction", "book/1.1/summary.md": "Summary", "book/1.1/exercises.md": "Exercises",
				"book/1.2/intro.md": "Introduction", "book/1.2/summary.md": "Summary", "book/1.2/exercises.md": "Exercises", "book/1.2/loops.md": "Loops",
				"book/1.3/intro.md": "Introduction", "book/1.3/summary.md": "Summary", "book/1.3/errors.md": "Errors", "book/1.3/panics.md": "Panics", "book/1.3/types.md": "Types",
			},
			want: map[string]string{"book/1.3/intro.md": "", "book/1.3/summary.md": "", "book/1.2/intro.md": "1.2*"},
		},
	} {
		got := copiesOf(c.pages)
		for p, want := range c.want {
			if got[p] != want {
				t.Errorf("%s: %s is %q, want %q", c.name, p, got[p], want)
			}
		}
	}
}

// CalVer releases by month (2024.1 … 2024.12) are versions, months 10–12
// too, when their siblings write a month without its leading zero; a
// folder of 2024.10 beside 2024.09 (or alone) is a date.
func TestVersionFamiliesCalVerMonths(t *testing.T) {
	t.Parallel()
	pages := map[string]string{}
	for m := 1; m <= 12; m++ {
		for _, p := range []string{"install", "config"} {
			pages[fmt.Sprintf("site/2024.%d/%s.md", m, p)] = p
			pages[fmt.Sprintf("notes/2024.%02d/%s.md", m, p)] = p
		}
	}
	got := copiesOf(pages)
	for p, want := range map[string]string{
		"site/2024.12/install.md": "2024.12*", "site/2024.10/config.md": "2024.10",
		"site/2024.9/install.md": "2024.9", "site/2024.1/config.md": "2024.1",
		"notes/2024.12/install.md": "", "notes/2024.01/install.md": "",
	} {
		if got[p] != want {
			t.Errorf("%s is %q, want %q", p, got[p], want)
		}
	}
	// A search reads the copies when a candidate is in 2024.10 only.
	if !inVersionFolder([]*candidate{{ext: chunkID("p", "site/2024.11/install.md", 0)}}) {
		t.Error("inVersionFolder: site/2024.11/install.md is in no version folder; want one (a CalVer month)")
	}
	if forms := queryVersions([]string{"2024.11"}); !forms["2024.11"] {
		t.Errorf("queryVersions(2024.11) = %v; want 2024.11 named", forms)
	}
}

// A short chapter (1.1/ with only an introduction and a summary) is a
// "release" by the majority rule; the chapters after it, each with the
// same two pages and its own, are no grown releases of it: only the newest
// version folder may have grown, and only from the folder just before it.
func TestVersionFamiliesGrownChaptersAfterAShortOne(t *testing.T) {
	t.Parallel()
	pages := map[string]string{"book/1.1/intro.md": "Introduction", "book/1.1/summary.md": "Summary"}
	for ch := 2; ch <= 10; ch++ {
		pages[fmt.Sprintf("book/1.%d/intro.md", ch)] = "Introduction"
		pages[fmt.Sprintf("book/1.%d/summary.md", ch)] = "Summary"
		for _, p := range []string{"a", "b", "c"} {
			pages[fmt.Sprintf("book/1.%d/%s%d.md", ch, p, ch)] = fmt.Sprintf("Page %s%d", p, ch)
		}
	}
	got := copiesOf(pages)
	for _, p := range []string{"book/1.1/intro.md", "book/1.3/intro.md", "book/1.5/summary.md", "book/1.10/intro.md"} {
		if got[p] != "" {
			t.Errorf("%s is %q, want no copy (chapters, not releases)", p, got[p])
		}
	}
}
