package indexer

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

func TestNamedPackage(t *testing.T) {
	t.Parallel()
	aliases := []string{"consul", "traefik", "Prometheus"}
	for _, c := range []struct {
		q    string
		want string
	}{
		{"profile consul CPU usage", "consul"},
		{"traefik's access logs", "traefik"},
		{"upgrading from prometheus 2 to 3", "Prometheus"}, // case aside
		{"Consul? consul.", "consul"},                      // punctuation, named twice
		{"send consul metrics to prometheus", ""},          // two named: no prior
		{"consult the logs", ""},                           // a word, not a part of one
		{"access logs in JSON", ""},
		// Marked up as a model or a user writes a name: code, quotes,
		// emphasis, brackets.
		{"`traefik` access logs", "traefik"},
		{"“Consul” health checks", "consul"},
		{"*traefik*'s access logs", "traefik"},
		{"[consul] and {prometheus}", ""}, // two named
		{"`traefik`'s middleware", "traefik"},
		{"traefik-ish logs", ""}, // another word
	} {
		if got := namedPackage(splitWords(c.q), aliases); got != c.want {
			t.Errorf("namedPackage(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	// An alias may end with '-' or '_' (naming.ValidAlias): kept.
	if got := namedPackage([]string{"`tools-`", "setup"}, []string{"tools-", "tools"}); got != "tools-" {
		t.Errorf("namedPackage(`tools-`) = %q, want tools-", got)
	}
	if got := namedPackage([]string{"consul"}, []string{"consul"}); got != "" {
		t.Errorf("one package: %q, want none", got)
	}
}

func splitWords(s string) []string { return parseQuery(s).words }

func TestIsName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, out, pkg, chunks int
		want                 bool
	}{
		{1, 0, 1, 2, true},         // the package's word, nobody else's
		{0, 0, 1, 2, false},        // no chunk holds it
		{3, 3, 10, 1000, false},    // half the chunks that hold it are others'
		{4, 3, 10, 1000, true},     // most are the package's; 3 of the 990 others
		{9, 1, 10, 59, false},      // 1 of the 49 others' chunks: over 1 in 50
		{9, 1, 10, 60, true},       // 1 of 50: at the bound
		{90, 21, 100, 1100, false}, // 21 of 1000 others
		{90, 20, 100, 1100, true},  // 20 of 1000 others
	} {
		if got := isName(c.in, c.out, c.pkg, c.chunks); got != c.want {
			t.Errorf("isName(in %d, out %d, pkg %d, chunks %d) = %v, want %v", c.in, c.out, c.pkg, c.chunks, got, c.want)
		}
	}
}

// searchScores returns the package and score of each hit of text, with
// and without a package filter naming every package (which turns the
// named package's prior off).
func searchScores(t *testing.T, r *Reader, text string, all []string) (plain, filtered map[string]float64) {
	t.Helper()
	ctx := context.Background()
	plain, filtered = map[string]float64{}, map[string]float64{}
	for _, q := range []struct {
		pkgs []string
		into map[string]float64
	}{{nil, plain}, {all, filtered}} {
		hits, err := r.Search(ctx, Query{Text: text, Packages: q.pkgs})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			q.into[h.Package+"/"+h.Path] = h.Score
		}
	}
	return plain, filtered
}

func TestNamedPackagePrior(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	// acme's page says "acme", no other chunk does: a name. "api" is
	// in the api package's page and in one of security's two: half the
	// chunks that hold it are another package's, so not a name.
	writeFiles(t, dir, "acme", map[string]string{"p.md": "# Zoo\n\nlion cage at acme\n"})
	writeFiles(t, dir, "zoo", map[string]string{"p.md": "# Zoo\n\nlion cage\n"})
	writeFiles(t, dir, "api", map[string]string{"ref.md": "# Reference\n\nthe api lists endpoints\n"})
	writeFiles(t, dir, "security", map[string]string{
		"keys.md":  "# Keys\n\nrotate the api keys monthly\n",
		"audit.md": "# Audit\n\nrotate audit logs yearly\n",
	})
	all := []string{"acme", "api", "security", "zoo"}
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "acme"}, {Alias: "api"}, {Alias: "security"}, {Alias: "zoo"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	// "acme" names acme (1 chunk holds it, acme's; 0 of the other 4
	// chunks): zoo's chunk at 0.7 of its score, acme's as it was.
	plain, filtered := searchScores(t, r, "lion acme", all)
	if len(plain) != 2 || len(filtered) != 2 {
		t.Fatalf("hits %v and %v, want acme's and zoo's pages", plain, filtered)
	}
	if plain["acme/p.md"] != filtered["acme/p.md"] {
		t.Errorf("acme's page scored %.9f, %.9f with every package filtered: want the same", plain["acme/p.md"], filtered["acme/p.md"])
	}
	if got, want := plain["zoo/p.md"], 0.7*filtered["zoo/p.md"]; math.Abs(got-want) > 1e-9 {
		t.Errorf("zoo's page scored %.9f, want 0.7 of %.9f", got, filtered["zoo/p.md"])
	}

	// "api" is the api package's alias, but half the chunks that hold
	// it are security's: no prior, security's page scored as it is.
	plain, filtered = searchScores(t, r, "rotate api keys", all)
	if plain["security/keys.md"] == 0 || plain["security/keys.md"] != filtered["security/keys.md"] {
		t.Errorf("security's page scored %.9f, %.9f with every package filtered: want the same, not 0", plain["security/keys.md"], filtered["security/keys.md"])
	}
	for _, alias := range []string{"acme", "api", "zoo"} {
		open, release, err := r.acquire()
		if err != nil {
			t.Fatal(err)
		}
		adv, err := open.idx.Advanced()
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := adv.Reader()
		if err != nil {
			t.Fatal(err)
		}
		ok, err := open.cache.nameInIndex(ctx, rdr, open.idx.Mapping().AnalyzerNamed(textAnalyzer), alias)
		rdr.Close()
		release()
		if err != nil {
			t.Fatal(err)
		}
		// zoo: "zoo" is in both zoo's and acme's chunk (their titles).
		if want := alias == "acme"; ok != want {
			t.Errorf("nameInIndex(%q) = %v, want %v", alias, ok, want)
		}
	}

	// The index changes under the open Reader: zoo gets a page that
	// says "acme" too. Half the chunks that hold it are now zoo's, so
	// the new snapshot's "acme" is no name: no prior.
	writeFiles(t, dir, "zoo", map[string]string{"acme.md": "# Visitors\n\nacme sends visitors\n"})
	if _, err := Sync(ctx, dir, []Package{{Alias: "acme"}, {Alias: "api"}, {Alias: "security"}, {Alias: "zoo"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	plain, filtered = searchScores(t, r, "lion acme", all)
	if plain["zoo/p.md"] == 0 || plain["zoo/p.md"] != filtered["zoo/p.md"] {
		t.Errorf("after the update, zoo's page scored %.9f, %.9f with every package filtered: want the same, not 0", plain["zoo/p.md"], filtered["zoo/p.md"])
	}
}

// TestNamedCacheOfSnapshot: what a snapshotCache read of one snapshot
// (the packages, whether an alias is a name) is not the answer for
// another: asked with a new snapshot's reader, the cache reads it anew.
func TestNamedCacheOfSnapshot(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "acme", map[string]string{"p.md": "# Zoo\n\nlion cage at acme\n"})
	writeFiles(t, dir, "zoo", map[string]string{"p.md": "# Zoo\n\nlion cage\n"})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "acme"}, {Alias: "zoo"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// ask reads the packages and whether "acme" is a name through cache
	// (the current opening's when nil), with the current snapshot.
	ask := func(cache *snapshotCache) (*snapshotCache, []string, bool) {
		t.Helper()
		open, release, err := r.acquire()
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		adv, err := open.idx.Advanced()
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := adv.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer rdr.Close()
		if cache == nil {
			cache = open.cache
		}
		aliases, err := cache.packageAliases(rdr)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := cache.nameInIndex(ctx, rdr, open.idx.Mapping().AnalyzerNamed(textAnalyzer), "acme")
		if err != nil {
			t.Fatal(err)
		}
		return cache, aliases, ok
	}
	cache, aliases, ok := ask(nil)
	if !ok || len(aliases) != 2 {
		t.Fatalf("first index: packages %v, acme a name %v; want 2 packages, a name", aliases, ok)
	}
	// A third package, and zoo's page that says "acme": no longer a name.
	writeFiles(t, dir, "zoo", map[string]string{"acme.md": "# Visitors\n\nacme sends visitors\n"})
	writeFiles(t, dir, "new", map[string]string{"p.md": "# New\n\nnew lions\n"})
	if _, err := Sync(ctx, dir, []Package{{Alias: "acme"}, {Alias: "new"}, {Alias: "zoo"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, aliases, ok = ask(cache); ok || len(aliases) != 3 {
		t.Errorf("the first opening's cache with the new snapshot: packages %v, acme a name %v; want 3 packages, no name", aliases, ok)
	}
}

// TestNamedPackagePriorAliases: the named package is the alias as
// indexed (its case kept: "Acme" named by "acme"), and an alias that
// begins another ("acme", "acme-tools") names only its own package.
func TestNamedPackagePriorAliases(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "Acme", map[string]string{"p.md": "# Zoo\n\nlion cage at acme\n"})
	writeFiles(t, dir, "Acme-tools", map[string]string{"p.md": "# Zoo\n\nlion cage\n"})
	writeFiles(t, dir, "zoo", map[string]string{"p.md": "# Zoo\n\nlion cage\n"})
	all := []string{"Acme", "Acme-tools", "zoo"}
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "Acme"}, {Alias: "Acme-tools"}, {Alias: "zoo"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	plain, filtered := searchScores(t, r, "lion ACME", all)
	if len(plain) != 3 {
		t.Fatalf("hits %v, want the three pages", plain)
	}
	for page, want := range map[string]float64{"Acme/p.md": 1, "Acme-tools/p.md": 0.7, "zoo/p.md": 0.7} {
		if got := plain[page] / filtered[page]; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s scored %.3f of its score with every package filtered, want %.1f", page, got, want)
		}
	}
}
