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
	} {
		if got := namedPackage(splitWords(c.q), aliases); got != c.want {
			t.Errorf("namedPackage(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	if got := namedPackage([]string{"consul"}, []string{"consul"}); got != "" {
		t.Errorf("one package: %q, want none", got)
	}
}

func splitWords(s string) []string { return parseQuery(s).words }

func TestNamedPackagePrior(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "a", map[string]string{"p.md": "# Zoo\n\nlion cage\n"})
	writeFiles(t, dir, "b", map[string]string{"p.md": "# Zoo\n\nlion cage\n"})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "a"}, {Alias: "b"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	plain, err := r.Search(ctx, Query{Text: "lion"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 2 || plain[0].Score != plain[1].Score {
		t.Fatalf("hits %+v, want two of one score", plain)
	}
	// "b" names package b: a's chunk at namedPackagePrior (0.7) of b's
	// (the two pages are the same; "b" is in neither).
	hits, err := r.Search(ctx, Query{Text: "lion b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Package != "b" || hits[1].Package != "a" {
		t.Fatalf("hits %+v, want b's page then a's", hits)
	}
	if math.Abs(hits[1].Score-0.7*hits[0].Score) > 1e-9 {
		t.Errorf("scores %.9f and %.9f, want the second 0.7 of the first", hits[0].Score, hits[1].Score)
	}
	// A package filter: no prior.
	hits, err = r.Search(ctx, Query{Text: "lion a", Packages: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Score != hits[1].Score {
		t.Errorf("with a package filter, hits %+v, want two of one score", hits)
	}
}
