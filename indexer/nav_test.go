package indexer

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// TestNavChunk pins which chunks are navigation (navChunk): lists of links
// to other pages (a table of contents, a "See also" block, cards of an
// MDX index page), and which are not. rst pages: TestNavRST.
func TestNavChunk(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"see also", "### See Also\n\n* [npm init](/commands/npm-init)\n* [npm run-script](/commands/npm-run-script)\n* [config](/using-npm/config)\n", true},
		{"table of contents", "## Table of Contents\n\n- [Summary](#summary)\n- [Motivation](#motivation)\n  - [Goals](#goals)\n  - [Non-Goals](#non-goals)\n", true},
		{"SUMMARY.md", "# The Rust Programming Language\n\n[Foreword](foreword.md)\n[Introduction](ch00-00-introduction.md)\n\n1. [Getting Started](ch01-00-getting-started.md)\n    1. [Installation](ch01-01-installation.md)\n", true},
		{"reference links", "Guides:\n\n- [Routing][routing]\n- [Caching][caching]\n- [Testing][testing]\n", true},
		{"links with a few words each", "- [Installation](install.md): get it running\n- [Configuration](config.md): the options\n- [Deployment](deploy.md) to production\n", true},
		{"asciidoc see also", "SEE ALSO\n--------\nlinkgit:git-commit[1], linkgit:git-log[1]\nlinkgit:git-rebase[1]\nlink:user-manual.html[The user manual]\nxref:howto[How-to]\n", true},
		{"mdx cards", "## Next steps\n\n<Cards>\n  <Card title=\"Routing\" href=\"/docs/routing\" />\n  <Card title=\"Data fetching\" href=\"/docs/data-fetching\" />\n  <Card title=\"Caching\" href=\"/docs/caching\" />\n</Cards>\n", true},
		{"html links", "<ul>\n<li><a href=\"a.html\">Alpha</a></li>\n<li><a href=\"b.html\">Beta</a></li>\n<li><a href=\"c.html\">Gamma</a></li>\n</ul>\n", true},
		// not navigation
		{"prose with links", "# Install\n\nRun the [installer](install.md) and then read\nthe [configuration](config.md) page, which explains\nevery option that the server reads at start-up.\nThe defaults suit most projects; see [tuning](tuning.md).\n", false},
		{"list without links", "## Options\n\n- `--force`: overwrite files\n- `--dry-run`: print what would change\n- `--quiet`: print nothing\n", false},
		{"two links", "## See also\n\n- [alpha](a.md)\n- [beta](b.md)\n", false},
		{"links among prose", "## Setup\n\nFirst install the tools.\nThen configure the server.\nThen start it and check the logs.\nSee:\n- [a](a.md)\n- [b](b.md)\n- [c](c.md)\n", false},
		{"code with brackets", "```js\nconst x = a[0](b);\nconst y = c[1](d);\nconst z = e[2](f);\n```\n", false},
		{"tldr page", "# tar\n\n> Archiving utility.\n> More information: <https://www.gnu.org/software/tar>.\n\n- Create an archive:\n\n`tar cf {{target.tar}} {{file1 file2}}`\n", false},
		{"empty", "", false},
	} {
		if got := navChunk(c.text); got != c.want {
			t.Errorf("%s: navChunk = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNavPrior: a navigation chunk scores navPrior times what the same
// words score as text. nav.md and list.md hold the same tokens in every
// field (title "Zoo"; body "lion x tiger y bear z", the links' targets
// being words too), so BM25F scores them alike; nav.md's are links.
func TestNavPrior(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"nav.md":  "# Zoo\n\n- [lion](x)\n- [tiger](y)\n- [bear](z)\n",
		"list.md": "# Zoo\n\n- lion x\n- tiger y\n- bear z\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "lion"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Path != "list.md" || hits[1].Path != "nav.md" {
		t.Fatalf("hits %+v, want list.md then nav.md", hits)
	}
	// N = 2, lion in both: idf ln 1.2; body 6 tokens in each, at the
	// average (normalisation 1); head and title "zoo" only.
	// navPrior is 0.5.
	list := math.Log(1.2) * 1 / (1.3 + 1)
	if math.Abs(hits[0].Score-list) > 1e-9 || math.Abs(hits[1].Score-0.5*list) > 1e-9 {
		t.Errorf("scores %.9f and %.9f, want %.9f and %.9f", hits[0].Score, hits[1].Score, list, 0.5*list)
	}
}
