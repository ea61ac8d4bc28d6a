package indexer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/project"
)

// TestExtractLinks: each link form, with its line; code, images, anchors
// alone and other schemes are not links; code spans in a link's text stay
// in its label.
func TestExtractLinks(t *testing.T) {
	t.Parallel()
	doc := "---\ntitle: T\ndepends_on: \"[[adr-1|the first ADR]]\"\nsee-also:\n  - ../other/README.md\n  - plain words\nowner: team-a\n---\n" + // lines 1-8
		"# T\n" + // 9
		"See [the guide](guide.md#setup \"title\") and [ownership][own].\n" + // 10
		"A [[wiki note]] and [[notes/b|label]], not [[1]](https://x.example/a).\n" + // 11
		"![an image](img.png) [mail](mailto:a@b.c) [top](#top) `[code](no.md)`\n" + // 12
		"<https://github.com/o/r/blob/main/docs/a.md>\n" + // 13
		"```\n[fenced](no.md)\n```\n" + // 14-16
		"[own]: ch04-01-what-is-ownership.html#the-stack\n" + // 17
		"``[spanned](no.md)`` and `a [unequal](yes.md) `` (runs of unequal length close nothing)\n" + // 18
		"Use [`docker run`](run.md), [the `import` block](import.md) and [[cmd|`ls` command]].\n" // 19: code in a link's text is its text
	p := parseMarkdown("f.md", []byte(doc), nil)
	want := []rawLink{
		{Type: "depends_on", Target: "adr-1", Line: 3, Label: "the first ADR", Wiki: true},
		{Type: "see-also", Target: "../other/README.md", Line: 4},
		{Type: LinkMarkdown, Target: "guide.md#setup", Line: 10, Label: "the guide"},
		{Type: LinkWiki, Target: "wiki note", Line: 11},
		{Type: LinkWiki, Target: "notes/b", Line: 11, Label: "label"},
		{Type: LinkMarkdown, Target: "https://x.example/a", Line: 11, Label: "[1]"},
		{Type: LinkMarkdown, Target: "https://github.com/o/r/blob/main/docs/a.md", Line: 13},
		{Type: LinkMarkdown, Target: "ch04-01-what-is-ownership.html#the-stack", Line: 17, Label: "own"},
		{Type: LinkMarkdown, Target: "yes.md", Line: 18, Label: "unequal"},
		{Type: LinkWiki, Target: "cmd", Line: 19, Label: "`ls` command"},
		{Type: LinkMarkdown, Target: "run.md", Line: 19, Label: "`docker run`"},
		{Type: LinkMarkdown, Target: "import.md", Line: 19, Label: "the `import` block"},
	}
	if !reflect.DeepEqual(p.Links, want) {
		g, _ := json.MarshalIndent(p.Links, "", " ")
		t.Errorf("links:\n%s", g)
	}
}

// TestNormalizeMeta: types kept, dates as dates (YAML strings, TOML
// times), nested maps with string keys, and the catalogue round trip.
func TestNormalizeMeta(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"---\nn: 135\nf: 1.5\nok: true\nday: 2019-07-17\nat: 2020-01-02T03:04:05Z\nlist: [a, b]\nm:\n  alpha: v1.19\n---\n# x\n",
		"+++\nn = 135\nf = 1.5\nok = true\nday = 2019-07-17\nat = 2020-01-02T03:04:05Z\nlist = [\"a\", \"b\"]\n[m]\nalpha = \"v1.19\"\n+++\n# x\n",
	} {
		p := parseMarkdown("f.md", []byte(doc), nil)
		b, _ := json.Marshal(encodeMeta(p.Meta))
		var back map[string]any
		json.Unmarshal(b, &back)
		m := decodeMeta(back).(map[string]any)
		got, _ := json.Marshal(m)
		want := `{"at":"2020-01-02T03:04:05Z","day":"2019-07-17","f":1.5,"list":["a","b"],"m":{"alpha":"v1.19"},"n":135,"ok":true}`
		if string(got) != want {
			t.Errorf("%q:\n got %s\nwant %s", doc[:3], got, want)
		}
		if _, ok := m["day"].(Date); !ok {
			t.Errorf("%q: day is %T, want a Date", doc[:3], m["day"])
		}
	}
}

// TestRepoURLPaths reads repository URLs of the common forges.
func TestRepoURLPaths(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		url, key string
		first    string
	}{
		{"https://github.com/kubernetes/enhancements/blob/master/keps/sig-node/README.md", "github.com/kubernetes/enhancements", "keps/sig-node/README.md"},
		{"https://github.com/Kubernetes/Enhancements/tree/main/keps/sig-node/", "github.com/kubernetes/enhancements", "keps/sig-node/"},
		{"https://raw.githubusercontent.com/rust-lang/book/main/src/ch01.md", "github.com/rust-lang/book", "src/ch01.md"},
		{"https://gitlab.com/group/sub/proj/-/blob/v1/docs/a.md", "gitlab.com/group/sub/proj", "docs/a.md"},
		{"https://github.com/o/r/pull/12", "", ""},
		{"https://example.com/docs/a.md", "", ""},
	} {
		key, paths := repoURLPaths(tt.url)
		first := ""
		if len(paths) > 0 {
			first = paths[0]
		}
		if key != tt.key || first != tt.first {
			t.Errorf("%s: key %q paths %q, want %q %q", tt.url, key, paths, tt.key, tt.first)
		}
	}
	for src, want := range map[string]string{
		"https://github.com/kubernetes/enhancements.git": "github.com/kubernetes/enhancements",
		"git@github.com:Kubernetes/enhancements.git":     "github.com/kubernetes/enhancements",
		"https://user@www.github.com/o/r/":               "github.com/o/r",
	} {
		if got := naming.RepoKey(src); got != want {
			t.Errorf("RepoKey(%q) = %q, want %q", src, got, want)
		}
	}
}

// linkFixture indexes two git packages of two GitHub repositories (a book
// under src/, KEPs under keps/) and a dir source of notes.
func linkFixture(t *testing.T) *Reader {
	t.Helper()
	root := t.TempDir()
	ctxDir := filepath.Join(root, ".context")
	files := map[string]string{
		"book/ch04-01-what-is-ownership.md":   "# What is Ownership?\n\n## The Stack and the Heap\n",
		"book/ch03-02-data-types.md":          "# Data Types\n\nSee [the stack][stack] and the [KEP](https://github.com/kubernetes/enhancements/blob/master/keps/sig-node/135-seccomp/README.md).\nAlso [std](../std/index.html) and [gone](ch99-missing.html).\n\n[stack]: ch04-01-what-is-ownership.html#the-stack-and-the-heap\n",
		"book/ch05-01-defining-structs.md":    "# Structs\n\n[move](ch04-01-what-is-ownership.html#move) and [listing](listings/a.rs) and the [sig](https://github.com/kubernetes/enhancements/tree/main/keps/sig-node/1234-foo).\n",
		"book/listings/a.rs":                  "fn main() {}\n",
		"keps/sig-node/135-seccomp/README.md": "# Seccomp\n\n[other](../1234-foo/README.md) and [missing](../9-none/) and [repo](/keps/sig-node/1234-foo).\n",
		"keps/sig-node/135-seccomp/kep.yaml":  "title: Seccomp\nkep-number: 135\nstatus: implemented\ncreation-date: 2019-07-17\nsee-also:\n  - \"/keps/sig-node/1234-foo\"\nauthors: [\"@a\", \"@b\"]\n",
		"keps/sig-node/1234-foo/README.md":    "# Foo\n",
		"keps/sig-node/1234-foo/kep.yaml":     "title: Foo\nkep-number: 1234\nstatus: implementable\ncreation-date: 2021-03-01\nstage: beta\n",
		"notes/a.md":                          "---\ndepends_on: \"[[b]]\"\nstatus: Implementable\n---\n# A\n\n[[ch04-01-what-is-ownership]] and [[nowhere]].\n",
		"notes/sub/b.md":                      "# B\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rev := strings.Repeat("a", 40)
	pkgs := []Package{
		{Alias: "book", Kind: project.KindGit, Source: "https://github.com/rust-lang/book", Path: "src", Rev: rev, Dir: filepath.Join(root, "book")},
		{Alias: "keps", Kind: project.KindGit, Source: "https://github.com/kubernetes/enhancements.git", Path: "keps", Rev: rev, Dir: filepath.Join(root, "keps")},
		{Alias: "notes", Kind: project.KindDir, Source: "notes", Dir: filepath.Join(root, "notes")},
	}
	if _, err := Sync(context.Background(), ctxDir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func linkStrings(ls []Link, back bool) []string {
	var out []string
	for _, l := range ls {
		s := l.Type + " " + l.Status
		if back {
			s += " " + l.From.Package + "/" + l.From.Path
		} else if l.To != nil {
			s += " " + l.To.Package + "/" + l.To.Path
		} else {
			s += " " + l.Target
		}
		out = append(out, s)
	}
	return out
}

// TestLinkGraph resolves each form: .html to .md, reference links,
// repository URLs (blob and tree) into another package, repo-rooted and
// relative folder paths, kep.yaml's see-also, wikilinks by path and by
// name; broken links keep file:line; paths leaving a package are external.
func TestLinkGraph(t *testing.T) {
	t.Parallel()
	r := linkFixture(t)
	out, _, err := r.Links("book", "ch03-02-data-types.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"link resolved keps/sig-node/135-seccomp/README.md",
		"link external ../std/index.html",
		"link broken ch99-missing.html",
		"link resolved book/ch04-01-what-is-ownership.md",
	}
	if got := linkStrings(out, false); !reflect.DeepEqual(got, want) {
		t.Errorf("ch03-02 links:\n got %q\nwant %q", got, want)
	}
	if out[3].Anchor != "the-stack-and-the-heap" || out[3].Line != 6 {
		t.Errorf("reference link: anchor %q line %d", out[3].Anchor, out[3].Line)
	}
	_, back, err := r.Links("book", "ch04-01-what-is-ownership.md")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"link resolved book/ch03-02-data-types.md", "link resolved book/ch05-01-defining-structs.md", "wikilink resolved notes/a.md"}
	if got := linkStrings(back, true); !reflect.DeepEqual(got, want) {
		t.Errorf("ch04-01 backlinks:\n got %q\nwant %q", got, want)
	}
	out, _, _ = r.Links("book", "ch05-01-defining-structs.md")
	want = []string{"link resolved book/ch04-01-what-is-ownership.md", "link file listings/a.rs", "link resolved keps/sig-node/1234-foo/README.md"}
	if got := linkStrings(out, false); !reflect.DeepEqual(got, want) {
		t.Errorf("ch05-01 links:\n got %q\nwant %q", got, want)
	}
	out, _, _ = r.Links("keps", "sig-node/135-seccomp/README.md")
	want = []string{"see-also resolved keps/sig-node/1234-foo/README.md", "link resolved keps/sig-node/1234-foo/README.md",
		"link broken ../9-none/", "link resolved keps/sig-node/1234-foo/README.md"}
	if got := linkStrings(out, false); !reflect.DeepEqual(got, want) {
		t.Errorf("135 links:\n got %q\nwant %q", got, want)
	}
	out, _, _ = r.Links("notes", "a.md")
	want = []string{"depends_on resolved notes/sub/b.md", "wikilink resolved book/ch04-01-what-is-ownership.md", "wikilink broken nowhere"}
	if got := linkStrings(out, false); !reflect.DeepEqual(got, want) {
		t.Errorf("notes links:\n got %q\nwant %q", got, want)
	}
	broken, err := r.BrokenLinks(nil)
	if err != nil {
		t.Fatal(err)
	}
	var bs []string
	for _, l := range broken {
		bs = append(bs, l.From.Package+"/"+l.From.Path+":"+itoa(l.Line)+" "+l.Target)
	}
	want = []string{"book/ch03-02-data-types.md:4 ch99-missing.html", "keps/sig-node/135-seccomp/README.md:3 ../9-none/", "notes/a.md:7 nowhere"}
	if !reflect.DeepEqual(bs, want) {
		t.Errorf("broken:\n got %q\nwant %q", bs, want)
	}
	if _, _, err := r.Links("book", "ch04-01-what-is-ownership"); err == nil || !strings.Contains(err.Error(), "did you mean ch04-01-what-is-ownership.md") {
		t.Errorf("unknown document: %v", err)
	}
	ns, err := r.Neighbours(context.Background(), "notes", "sub/b.md", 2)
	if err != nil {
		t.Fatal(err)
	}
	var nn []string
	for _, n := range ns {
		nn = append(nn, n.Package+"/"+n.Path+" "+itoa(n.Distance))
	}
	want = []string{"notes/a.md 1", "book/ch04-01-what-is-ownership.md 2"}
	if !reflect.DeepEqual(nn, want) {
		t.Errorf("neighbours: %q, want %q", nn, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestFindOperators: each operator of a where filter, over front matter
// and kep.yaml fields, and the errors of bad filters.
func TestFindOperators(t *testing.T) {
	t.Parallel()
	r := linkFixture(t)
	for _, tt := range []struct {
		where string
		want  []string
	}{
		{`{"status": "implementable"}`, []string{"keps/sig-node/1234-foo/README.md", "notes/a.md"}},
		{`{"status": {"$in": ["implemented", "deferred"]}}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"kep-number": {"$gt": 200}}`, []string{"keps/sig-node/1234-foo/README.md"}},
		{`{"kep-number": {"$lt": 200}}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"kep-number": "135"}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"creation-date": {"$between": ["2021-01-01", "2021-12-31"]}}`, []string{"keps/sig-node/1234-foo/README.md"}},
		{`{"creation-date": {"$lt": "2020-01-01"}}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"see-also": {"$exists": true}}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"stage": {"$exists": false}, "kep-number": {"$gte": 1}}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"authors": {"$contains": "@b"}}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"authors": "@a"}`, []string{"keps/sig-node/135-seccomp/README.md"}},
		{`{"title": "Structs"}`, []string{"book/ch05-01-defining-structs.md"}},
	} {
		var where map[string]any
		if err := json.Unmarshal([]byte(tt.where), &where); err != nil {
			t.Fatal(err)
		}
		res, err := r.Find(context.Background(), FindQuery{Where: where})
		if err != nil {
			t.Errorf("%s: %v", tt.where, err)
			continue
		}
		var got []string
		for _, d := range res.Documents {
			got = append(got, d.Package+"/"+d.Path)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.where, got, tt.want)
		}
	}
	res, err := r.Find(context.Background(), FindQuery{Where: map[string]any{"kep-number": map[string]any{"$exists": true}}, Limit: 1})
	if err != nil || len(res.Documents) != 1 || res.NextCursor != "1" || res.Total != 2 {
		t.Fatalf("page 1: %+v %v", res, err)
	}
	res, err = r.Find(context.Background(), FindQuery{Where: map[string]any{"kep-number": map[string]any{"$exists": true}}, Limit: 1, Cursor: res.NextCursor})
	if err != nil || len(res.Documents) != 1 || res.NextCursor != "" || res.Documents[0].Path != "sig-node/135-seccomp/README.md" {
		t.Fatalf("page 2: %+v %v", res, err)
	}
	for where, msg := range map[string]string{
		`{"a": {"$near": 1}}`:       `where.a: unknown operator "$near"`,
		`{"a": {"$gt": "soon"}}`:    `where.a: $gt compares numbers or dates`,
		`{"a": {"$between": [1]}}`:  `where.a: $between takes two values`,
		`{"a": {"$in": "x"}}`:       `where.a: $in takes a list`,
		`{"a": {"$exists": "yes"}}`: `where.a: $exists takes true or false`,
	} {
		var w map[string]any
		json.Unmarshal([]byte(where), &w)
		if _, err := r.Find(context.Background(), FindQuery{Where: w}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", where, err, msg)
		}
	}
	m, err := r.Metadata("keps", "sig-node/135-seccomp/README.md")
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := m.Meta["creation-date"].(Date); !ok || d.String() != "2019-07-17" || m.Links != 4 || m.Back != 1 || m.Broken != 1 || m.Commit == "" {
		t.Errorf("metadata: %+v", m)
	}
}

// FuzzExtractLinks: any document parses; every link has a line of the
// document, a bounded target, and the list is bounded.
func FuzzExtractLinks(f *testing.F) {
	for _, s := range []string{
		"[a](b.md) [[c|d]] <https://x.example/y>\n[e]: f.html#g\n",
		"---\ndepends_on: \"[[x]]\"\nsee-also: [/keps/a, ../b.md]\n---\n[[ ]] [[]] [](<>)\n",
		"```\n[no](x.md)\n```\n<!--\n[no](y.md)\n-->\n`[no](z.md)` [[1]](http://a)\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		p := parseMarkdown("f.md", []byte(doc), nil)
		if len(p.Links) > maxLinksPerDoc {
			t.Fatalf("%d links", len(p.Links))
		}
		for _, l := range p.Links {
			if l.Line < 1 || l.Line > p.Lines || l.Target == "" || len(l.Target) > 2048 {
				t.Fatalf("bad link %+v in a document of %d lines", l, p.Lines)
			}
		}
		g := buildGraph([]Package{{Alias: "a", Kind: "git", Source: "https://github.com/o/r", Path: "docs"}},
			map[string][]fileRecord{"a": {{Path: "x/f.md", Links: p.Links}}})
		if len(g.out[docKey{"a", "x/f.md"}]) != len(p.Links) {
			t.Fatal("links lost in the graph")
		}
	})
}

// TestHTTPSPackageLinksResolve (audit16, finding 4): the documents of an
// https package (an archive of docs here) link to each other by relative
// paths; those links resolve, and one to a missing document is broken, as
// in a git package. A site-absolute link that finds nothing is external,
// not broken: the archive's place on its site is unknown (as a dir
// source's in its repository).
func TestHTTPSPackageLinksResolve(t *testing.T) {
	t.Parallel()
	// Only an archive holds its source's whole tree: a link that finds
	// nothing in a page's or an llms.txt's package names a page of the
	// site that is not installed (external), as in a git package installed
	// from one file.
	for _, c := range []struct {
		source, nope string
		broken       int
	}{
		{"https://docs.example/docs.tar.gz", "link broken nope.md", 1},
		{"https://docs.example/guide/a.md", "link external nope.md", 0},
		{"https://docs.example/llms.txt", "link external nope.md", 0},
	} {
		t.Run(c.source, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			ctxDir := filepath.Join(root, ".context")
			files := map[string]string{
				"arch/a.md":     "# A\n\nSee [B](sub/b.md) and [nothing](nope.md) and [site](/elsewhere.md).\n",
				"arch/sub/b.md": "# B\n\nBack to [A](../a.md).\n",
			}
			for name, body := range files {
				p := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pkgs := []Package{{Alias: "arch", Kind: project.KindHTTPS, Source: c.source,
				Rev: "sha256:" + strings.Repeat("0123456789abcdef", 4), Dir: filepath.Join(root, "arch")}}
			if _, err := Sync(context.Background(), ctxDir, pkgs, Options{}); err != nil {
				t.Fatal(err)
			}
			r, err := OpenReader(ctxDir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			out, back, err := r.Links("arch", "a.md")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"link resolved arch/sub/b.md", c.nope, "link external /elsewhere.md"}
			if got := linkStrings(out, false); !reflect.DeepEqual(got, want) {
				t.Errorf("a.md links:\n got %q\nwant %q", got, want)
			}
			if got := linkStrings(back, true); !reflect.DeepEqual(got, []string{"link resolved arch/sub/b.md"}) {
				t.Errorf("a.md backlinks: %q", got)
			}
			broken, err := r.BrokenLinks(nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(broken) != c.broken {
				t.Errorf("broken links: %d, want %d", len(broken), c.broken)
			}
		})
	}
}
