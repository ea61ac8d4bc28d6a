package indexer

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want parsedQuery
	}{
		{"error handling", parsedQuery{words: []string{"error", "handling"}}},
		// review of rank23a: what comes between two words parts them (apart).
		{`health -x check "a b" dry kind:changelog run path:p tag:t package:k out now`, parsedQuery{words: []string{"health", "check", "dry", "run", "out", "now"}, apart: []int{1, 2, 3, 4}, excluded: []string{"x"}, exclPhrase: []bool{false}, phrases: []string{"a b"}, docKinds: []string{"changelog"}, paths: []string{"p"}, tags: []string{"t"}, packages: []string{"k"}}},
		{`  "exact phrase"  here `, parsedQuery{words: []string{"here"}, phrases: []string{"exact phrase"}}},
		{`-word -"two  words" keep`, parsedQuery{words: []string{"keep"}, excluded: []string{"word", "two words"}, exclPhrase: []bool{false, true}}},
		{"package:k8s path:/docs/a tag:Go kind:DIR x", parsedQuery{words: []string{"x"}, packages: []string{"k8s"}, paths: []string{"docs/a"}, tags: []string{"go"}, kinds: []string{"dir"}}},
		{"Package:a package:b", parsedQuery{packages: []string{"a", "b"}}},
		{"kind:Changelog kind:git kind:migration x", parsedQuery{words: []string{"x"}, kinds: []string{"git"}, docKinds: []string{"changelog", "migration"}}},
		// Never an error: what is not syntax is a word.
		{`unclosed "quote runs to the end`, parsedQuery{words: []string{"unclosed"}, phrases: []string{"quote runs to the end"}}},
		{`tag: foo:bar - --force server-side ""`, parsedQuery{words: []string{"tag:", "foo:bar", "-", "--force", "server-side"}}},
		{`-`, parsedQuery{words: []string{"-"}}},
		{`a"b`, parsedQuery{words: []string{`a"b`}}},
		{`"`, parsedQuery{}},
		{`--dry-run`, parsedQuery{words: []string{"--dry-run"}}},
	} {
		if got := parseQuery(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseQuery(%q)\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
}

// TestQueryOfExclusionsAlone: exclusions with no word, phrase or filter
// leave nothing to rank (a flag pasted as the query) and are read as
// written; with any of those, they stay exclusions.
func TestQueryOfExclusionsAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q    Query
		want parsedQuery
	}{
		{Query{Text: ` -search.maxUniqueTimeseries `}, parsedQuery{words: []string{"-search.maxUniqueTimeseries"}, asWritten: true}},
		{Query{Text: `-dry -"run it"`}, parsedQuery{words: []string{"-dry"}, phrases: []string{"run it"}, asWritten: true}},
		{Query{Text: `-dry package:k`}, parsedQuery{excluded: []string{"dry"}, exclPhrase: []bool{false}, packages: []string{"k"}}},
		{Query{Text: `-dry`, Tags: []string{"t"}}, parsedQuery{excluded: []string{"dry"}, exclPhrase: []bool{false}}},
		{Query{Text: `x -dry`}, parsedQuery{words: []string{"x"}, excluded: []string{"dry"}, exclPhrase: []bool{false}}},
	} {
		if got := queryOf(tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("queryOf(%+v)\n got %+v\nwant %+v", tc.q, got, tc.want)
		}
		if got := OnlyExclusions(tc.q); got != tc.want.asWritten {
			t.Errorf("OnlyExclusions(%+v) = %v", tc.q, got)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{`"a b" -c package:x path:y tag:z kind:git w`, `-"`, `"-`, "\xff\"", "-\u00e9t\u00e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := parseQuery(s)
		for _, list := range [][]string{q.words, q.phrases, q.excluded} {
			for _, w := range list {
				if w == "" || strings.TrimSpace(w) != w {
					t.Fatalf("parseQuery(%q): empty or padded item %q in %+v", s, w, q)
				}
			}
		}
	})
}

// openSyntaxFixture indexes a small project for the query syntax tests:
// packages docs (git) and ops (https), tags from front matter (tags,
// keywords) and an inline Tags: line.
func openSyntaxFixture(t *testing.T) *Reader {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "docs", map[string]string{
		"guide/install.md": "---\ntags: [Setup]\nkeywords: linux, packages\n---\n# Install\n\nInstall the tool with the package manager. Run the wizard on Linux.\n",
		"guide/upgrade.md": "# Upgrade\n\nTags: setup, maintenance\n\nUpgrade the tool: run the wizard again, then restart the service.\n",
		"ref/cli.md":       "# Command line\n\nThe tool's command line installs and removes packages.\n",
	})
	writeFiles(t, dir, "ops", map[string]string{
		"runbook.md": "# Restart\n\nRestart the service after you install the tool.\n",
	})
	pkgs := []Package{{Alias: "docs"}, {Alias: "ops", Kind: "https"}}
	if _, err := Sync(context.Background(), dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestQuerySyntax(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	ctx := context.Background()
	for _, tc := range []struct {
		query string
		q     Query // Text is the query
		want  []string
	}{
		{query: "wizard", want: []string{"docs/guide/install.md", "docs/guide/upgrade.md"}},
		// Phrases: word for word, in order; a phrase not closed runs to the end.
		{query: `"run the wizard"`, want: []string{"docs/guide/install.md", "docs/guide/upgrade.md"}},
		{query: `"the wizard again"`, want: []string{"docs/guide/upgrade.md"}},
		{query: `"wizard the run"`, want: nil},
		{query: `tool "wizard again`, want: []string{"docs/guide/upgrade.md"}},
		// Exclusions: a word, a phrase.
		{query: "wizard -again", want: []string{"docs/guide/install.md"}},
		{query: `wizard -"on linux"`, want: []string{"docs/guide/upgrade.md"}},
		// Qualifiers, alone or with the Query's own filters (both hold).
		{query: "restart package:ops", want: []string{"ops/runbook.md"}},
		{query: "tool path:guide/", want: []string{"docs/guide/install.md", "docs/guide/upgrade.md"}},
		{query: "tool path:guide/ path:ref", want: []string{"docs/guide/install.md", "docs/guide/upgrade.md", "docs/ref/cli.md"}},
		{query: "tool tag:maintenance", want: []string{"docs/guide/upgrade.md"}},
		{query: "tag:linux", want: []string{"docs/guide/install.md"}},
		{query: "tag:SETUP", want: []string{"docs/guide/install.md", "docs/guide/upgrade.md"}},
		{query: "tool kind:https", want: []string{"ops/runbook.md"}},
		{query: "tool kind:Changelog", want: nil}, // a document kind: none here
		{query: "-wizard package:docs", want: []string{"docs/ref/cli.md"}},
		{query: "tool package:ops", q: Query{Packages: []string{"docs"}}, want: nil},
		{query: "tool tag:setup", q: Query{Tags: []string{"maintenance"}}, want: []string{"docs/guide/upgrade.md"}},
		{query: "tool", q: Query{Paths: []string{"/guide/up", "ref/"}}, want: []string{"docs/guide/upgrade.md", "docs/ref/cli.md"}},
		{query: "tool path:guide/", q: Query{Paths: []string{"ref/"}}, want: nil},
		// A path as hits show it, ALIAS/PATH, is one too.
		{query: "tool path:docs/guide/", want: []string{"docs/guide/install.md", "docs/guide/upgrade.md"}},
		{query: "tool path:ops/", want: []string{"ops/runbook.md"}},
		{query: "tool", q: Query{Paths: []string{"docs/ref/"}}, want: []string{"docs/ref/cli.md"}},
		// Plain words: an unknown qualifier, an empty one, a lone dash.
		{query: "line unknown:qualifier", want: []string{"docs/ref/cli.md"}},
		{query: "- tag: tool package:ops", want: []string{"ops/runbook.md"}},
	} {
		q := tc.q
		q.Text = tc.query
		hits, err := r.Search(ctx, q)
		if err != nil {
			t.Errorf("%q: %v", tc.query, err)
			continue
		}
		var got []string
		for _, h := range hits {
			if p := h.Package + "/" + h.Path; !slices.Contains(got, p) {
				got = append(got, p)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.query, got, tc.want)
		}
	}
}

// A package the index does not hold is an error naming the indexed ones,
// not "no matches".
func TestSearchUnknownPackage(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	for _, q := range []Query{{Text: "tool package:nosuch"}, {Text: "tool", Packages: []string{"nosuch"}}} {
		_, err := r.Search(context.Background(), q)
		if !errors.Is(err, ErrUnknownPackage) || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "indexed: docs, ops") {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

// A kind: that is no kind is an error naming the kinds there are and the
// one a typo is within two letters of, not "no matches"; a kind in another
// case is that kind.
func TestSearchUnknownKind(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	for _, tc := range []struct{ text, hint string }{
		{"tool kind:chnagelog", "did you mean kind:changelog?"},
		{"tool kind:HTTP", "did you mean kind:https?"},
		{"tool kind:dir kind:wiki", ""},
	} {
		_, err := r.Search(context.Background(), Query{Text: tc.text})
		if !errors.Is(err, ErrUnknownKind) || !strings.Contains(err.Error(), "git, dir, https") ||
			!strings.Contains(err.Error(), "changelog, release, blog, whatsnew, migration, deprecation") || !strings.Contains(err.Error(), tc.hint) {
			t.Errorf("%q: %v, want ErrUnknownKind naming the kinds and %q", tc.text, err, tc.hint)
		}
		if tc.hint == "" && err != nil && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%q: %v suggests a kind far from the typo", tc.text, err)
		}
		if CheckQuery(tc.text) == nil {
			t.Errorf("%q: CheckQuery accepts it", tc.text)
		}
	}
	for _, text := range []string{"tool kind:HTTPS", "tool kind:dir kind:release", `tool "kind:wiki"`} {
		if err := CheckQuery(text); err != nil {
			t.Errorf("%q: %v", text, err)
		}
		if _, err := r.Search(context.Background(), Query{Text: text}); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	tags, err := r.Tags(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	one := func(n int) map[string]int { return map[string]int{"docs": n} }
	want := []TagCount{{"setup", 2, one(2)}, {"linux", 1, one(1)}, {"maintenance", 1, one(1)}, {"packages", 1, one(1)}}
	if !reflect.DeepEqual(tags, want) {
		t.Errorf("Tags: %v, want %v", tags, want)
	}
	if tags, _ := r.Tags(context.Background(), []string{"ops"}); len(tags) != 0 {
		t.Errorf("Tags(ops): %v, want none", tags)
	}
	hits, err := r.Search(context.Background(), Query{Text: "linux wizard"})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	if h := hits[0]; h.Path != "guide/install.md" || !slices.Equal(h.Tags, []string{"linux", "packages", "setup"}) {
		t.Errorf("first hit %s tags %v, want guide/install.md with linux, packages, setup", h.Path, h.Tags)
	}
}

// TestTagsPerPackage: a tag's count is split by package, and a package
// filter counts only its documents.
func TestTagsPerPackage(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "a", map[string]string{
		"x.md": "---\ntags: [api, http]\n---\n# X\n\nx\n",
		"y.md": "---\ntags: [api]\n---\n# Y\n\ny\n",
	})
	writeFiles(t, dir, "b", map[string]string{
		"z.md": "# Z\n\nTags: api, grpc\n",
	})
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "a"}, {Alias: "b"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tags, err := r.Tags(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []TagCount{
		{"api", 3, map[string]int{"a": 2, "b": 1}},
		{"grpc", 1, map[string]int{"b": 1}},
		{"http", 1, map[string]int{"a": 1}},
	}
	if !reflect.DeepEqual(tags, want) {
		t.Errorf("Tags = %v, want %v", tags, want)
	}
	tags, _ = r.Tags(context.Background(), []string{"b"})
	if want := []TagCount{{"api", 1, map[string]int{"b": 1}}, {"grpc", 1, map[string]int{"b": 1}}}; !reflect.DeepEqual(tags, want) {
		t.Errorf("Tags(b) = %v, want %v", tags, want)
	}
}

// TestBestPerDocumentBeyondCandidates: when one document's chunks fill
// the candidates bleve gives, a best-per-document search asks for more
// until it has its limit of documents (or there are no more).
func TestBestPerDocumentBeyondCandidates(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	var big strings.Builder
	big.WriteString("# Zebras\n\n")
	for i := range 260 {
		fmt.Fprintf(&big, "## Zebra %d\n\nZebra zebra zebra: the stripes of zebra number %d are black and white.\n\n", i, i)
	}
	files := map[string]string{"big.md": big.String()}
	for i := range 3 {
		files[fmt.Sprintf("small%d.md", i)] = fmt.Sprintf("# Note %d\n\nA zebra was seen near the river, among many other animals of the plains, on day %d.\n", i, i)
	}
	writeFiles(t, dir, "d", files)
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	for _, q := range []string{"zebra", `"zebra was seen" OR zebra`} {
		hits, err := r.Search(ctx, Query{Text: q, Limit: 10, BestPerDocument: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Path)
		}
		slices.Sort(got)
		if want := []string{"big.md", "small0.md", "small1.md", "small2.md"}; q == "zebra" && !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
		if want := []string{"small0.md", "small1.md", "small2.md"}; q != "zebra" && !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

// TestPathMatches: a path filter is a path inside a package, or the form
// hits show, ALIAS/PATH, for an indexed alias (the vector filter's rule,
// the same as bleve's filter in searchFilters).
func TestPathMatches(t *testing.T) {
	aliases := map[string]bool{"k8s": true}
	for _, c := range []struct {
		p, alias, path string
		want           bool
	}{
		{"keps/sig-apps", "k8s", "keps/sig-apps/1.md", true},
		{"/keps", "k8s", "keps/sig-apps/1.md", true},
		{"k8s/keps/sig-apps", "k8s", "keps/sig-apps/1.md", true},
		{"k8s/keps/sig-apps", "other", "keps/sig-apps/1.md", false},
		{"nosuch/keps", "nosuch", "keps/1.md", false},
		{"docs", "k8s", "keps/1.md", false},
	} {
		if got := pathMatches(c.p, c.alias, c.path, aliases); got != c.want {
			t.Errorf("pathMatches(%q, %q, %q) = %v, want %v", c.p, c.alias, c.path, got, c.want)
		}
	}
}

// TestBestPerDocumentMore: a best-per-document hit says how many other
// chunks of its document matched (Hit.More); a chunk list and a document
// with one matching chunk say none.
func TestBestPerDocumentMore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"ops.md": "# Operations\n\n## Rollout\n\nA rollout replaces the pods of a deployment one by one.\n\n" +
			"## Rollout speed\n\nSlow the rollout down with a pause between the batches of pods.\n\n" +
			"## Rollout history\n\nEach rollout is kept in the history, so that it can be undone.\n\n" +
			"## Logging\n\nLogs go to the standard output of each container, not to a file.\n",
		"intro.md": "# Intro\n\nA rollout is one step of a release, and there are many steps.\n",
		"other.md": "# Other\n\nNothing about that subject is written on this page at all.\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "rollout", BestPerDocument: true})
	if err != nil {
		t.Fatal(err)
	}
	more := map[string]int{}
	for _, h := range hits {
		more[h.Path] = h.More
	}
	if want := map[string]int{"ops.md": 2, "intro.md": 0}; !reflect.DeepEqual(more, want) {
		t.Errorf("More by document = %v, want %v (ops.md: three Rollout sections, one shown)", more, want)
	}
	all, err := r.Search(ctx, Query{Text: "rollout"})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Errorf("all chunks: %d hits, want 4", len(all))
	}
	for _, h := range all {
		if h.More != 0 {
			t.Errorf("chunk list: %s %q has More %d, want 0", h.Path, h.Heading, h.More)
		}
	}
}

// TestFuseMore: a fused best-per-document hit counts its document's other
// chunks: the lexical half's count (Search's), or the other fused chunks
// of the document when they are more.
func TestFuseMore(t *testing.T) {
	h := func(path string, n, more int) Hit {
		return Hit{Package: "p", Path: path, Score: float64(10 - n), More: more, id: chunkID("p", path, n)}
	}
	lex := []Hit{h("a.md", 0, 2), h("b.md", 1, 0)}
	sem := []Hit{h("a.md", 3, 0), h("b.md", 2, 0), h("b.md", 4, 0), h("c.md", 0, 0)}
	got := map[string]int{}
	for _, x := range fuse(lex, sem, Fusion{Method: "rrf", Weight: 0.3}, true, 10) {
		got[x.Path] = x.More
	}
	if want := map[string]int{"a.md": 2, "b.md": 2, "c.md": 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("More = %v, want %v", got, want)
	}
	if n := len(fuse(lex, sem, Fusion{Method: "rrf", Weight: 0.3}, false, 10)); n != 6 {
		t.Errorf("chunk list: %d hits, want all 6 chunks", n)
	}
	if n := len(fuse(lex, sem, Fusion{Method: "rrf", Weight: 0.3}, true, 2)); n != 2 {
		t.Errorf("best per document, limit 2: %d hits", n)
	}
}

// TestSearchOnlyExclusions (set 20's query 76): a query that is a flag
// (-search.maxUniqueTimeseries) has exclusions and nothing to score;
// read as an exclusion it left the page with the flag out and returned
// the others at score 0. It is searched as written: the page with the
// flag first, scored.
func TestSearchOnlyExclusions(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "vm", map[string]string{
		"flags.md":  "# Flags\n\n## Limits\n\nUse -search.maxUniqueTimeseries to limit the unique series a query may select.\n",
		"other.md":  "# Other\n\nA page about backups and restores.\n",
		"second.md": "# Second\n\nA page about retention.\n",
	})
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "vm"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	for _, text := range []string{"-search.maxUniqueTimeseries", `-"maxUniqueTimeseries"`} {
		if !OnlyExclusions(Query{Text: text}) {
			t.Errorf("OnlyExclusions(%q) = false", text)
		}
		hits, err := r.Search(context.Background(), Query{Text: text, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Path != "flags.md" || hits[0].Score <= 0 {
			t.Errorf("Search(%q) = %+v, want flags.md first with a score", text, hits)
		}
		for _, h := range hits {
			if h.Score <= 0 {
				t.Errorf("Search(%q): %s at score %v", text, h.Path, h.Score)
			}
		}
	}
	// With a word to search for, -word still leaves passages out.
	if OnlyExclusions(Query{Text: "page -backups"}) {
		t.Error(`OnlyExclusions("page -backups") = true`)
	}
	hits, err := r.Search(context.Background(), Query{Text: "page -backups", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Path != "second.md" {
		t.Errorf(`Search("page -backups") = %+v, want second.md alone`, hits)
	}
}
