package mcpserver

import (
	"fmt"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

func TestNearestPath(t *testing.T) {
	t.Parallel()
	cands := []string{"docs/setup.md", "docs/install.md", "README.md", "api/reference.md", "keps/sig-node/1234-swap/README.md", "keps/sig-node/1235-swab/README.md", "keps/sig-apps/77-jobs/README.md"}
	for want, best := range map[string]string{
		"docs/setpu.md":                     "docs/setup.md",                     // a swap
		"docs/stup.md":                      "docs/setup.md",                     // a deletion
		"setup.md":                          "docs/setup.md",                     // folders left out
		"readme.md":                         "README.md",                         // case
		"reference.md":                      "api/reference.md",                  // folders left out
		"keps/sig-node/1234-swqp/README.md": "keps/sig-node/1234-swap/README.md", // the folder, not the base, tells them apart
		"keps/sig-apps/77-jobz/README.md":   "keps/sig-apps/77-jobs/README.md",
		"keps/sig-apps/77-jobs/READNE.md":   "keps/sig-apps/77-jobs/README.md",
		"sig-node/1234-swap/README.md":      "keps/sig-node/1234-swap/README.md", // a leading folder left out
		"keps/sig-apps/77-jobs.md":          "keps/sig-apps/77-jobs/README.md",   // the folder named as a document
	} {
		got := nearestPath(want, cands, 3)
		if len(got) == 0 || got[0] != best {
			t.Errorf("nearestPath(%q) = %q, want %q first", want, got, best)
		}
	}
	for _, want := range []string{"zzzzzzzzzzzz.md", "keps/sig-zzzz/9999-nothing-like-it/README.md"} {
		if got := nearestPath(want, cands, 3); len(got) != 0 {
			t.Errorf("nearestPath(%q) = %q, want nothing", want, got)
		}
	}
}

// typo makes one random one-character edit (a substitution, insertion,
// deletion or swap of neighbours) in p[from:to], a part of p that has at
// least two characters.
func typo(rng *rand.Rand, p string, from, to int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789-"
	i := from + rng.Intn(to-from)
	c := string(letters[rng.Intn(len(letters))])
	switch rng.Intn(4) {
	case 0:
		return p[:i] + c + p[i+1:]
	case 1:
		return p[:i] + c + p[i:]
	case 2:
		return p[:i] + p[i+1:]
	default:
		if i+1 >= to {
			i--
		}
		return p[:i] + p[i+1:i+2] + p[i:i+1] + p[i+2:]
	}
}

// typoHits makes tries one-character typos in the folder part (even tries)
// and the base name (odd) of paths drawn at random, and counts how often
// nearestPath puts the right path first. Typos that give an existing path
// or leave it unchanged are drawn again.
func typoHits(t *testing.T, rng *rand.Rand, paths []string, tries int) (hits int) {
	t.Helper()
	exists := map[string]bool{}
	for _, p := range paths {
		exists[strings.ToLower(p)] = true
	}
	for i := 0; i < tries; {
		p := paths[rng.Intn(len(paths))]
		dir, _ := path.Split(p)
		var q string
		if i%2 == 0 && len(dir) > 2 {
			q = typo(rng, p, 0, len(dir)-1) // the folder part, before its last /
		} else if i%2 == 1 {
			q = typo(rng, p, len(dir), len(p))
		} else {
			continue
		}
		if exists[strings.ToLower(q)] || strings.Contains(q, "//") || strings.HasPrefix(q, "/") {
			continue
		}
		i++
		if got := nearestPath(q, paths, 3); len(got) > 0 && got[0] == p {
			hits++
		} else {
			t.Logf("%q: got %q, want %q", q, got, p)
		}
	}
	return hits
}

// readmeLayout is a k8s-keps-like layout drawn from rng: some 600 folders
// keps/sig-x/NNNN-name/ with a README.md each (one in ten a design.md
// too) and each sig's README.md, sorted.
func readmeLayout(rng *rand.Rand) []string {
	words := strings.Fields("pod node api storage network volume scheduler quota priority topology device dynamic resource allocation server side apply watch cache admission policy webhook token service account graceful shutdown memory swap cpu manager")
	sigs := strings.Fields("sig-api-machinery sig-apps sig-auth sig-autoscaling sig-cli sig-cloud-provider sig-cluster-lifecycle sig-instrumentation sig-network sig-node sig-release sig-scheduling sig-storage sig-testing sig-windows")
	seen := map[string]bool{}
	var paths []string
	for len(paths) < 600 {
		name := fmt.Sprintf("%d", 1+rng.Intn(6000))
		for range 2 + rng.Intn(4) {
			name += "-" + words[rng.Intn(len(words))]
		}
		p := "keps/" + sigs[rng.Intn(len(sigs))] + "/" + name + "/README.md"
		if seen[p] {
			continue
		}
		seen[p] = true
		paths = append(paths, p)
		if rng.Intn(10) == 0 {
			paths = append(paths, path.Dir(p)+"/design.md")
		}
	}
	for _, s := range sigs {
		paths = append(paths, "keps/"+s+"/README.md")
	}
	slices.Sort(paths)
	return paths
}

// BenchmarkNearestPath: one nearestPath call (a typo in a folder's name
// or a base name) over readmeLayout's ~680 paths.
func BenchmarkNearestPath(b *testing.B) {
	rng := rand.New(rand.NewSource(14))
	paths := readmeLayout(rng)
	var typos []string
	for i := range 64 {
		p := paths[rng.Intn(len(paths))]
		dir, _ := path.Split(p)
		if i%2 == 0 {
			typos = append(typos, typo(rng, p, 0, len(dir)-1))
		} else {
			typos = append(typos, typo(rng, p, len(dir), len(p)))
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		nearestPath(typos[i%len(typos)], paths, 3)
	}
}

// TestNearestPathManyReadmes: among hundreds of README.md files in nested
// folders (as k8s-keps: keps/sig-x/NNNN-name/README.md), a one-character
// typo anywhere in the folder part or in the base name finds the right
// path first in at least 95% of cases.
func TestNearestPathManyReadmes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(14))
	paths := readmeLayout(rng)
	const tries = 500
	hits := typoHits(t, rng, paths, tries)
	t.Logf("%d paths: right path first for %d of %d typos", len(paths), hits, tries)
	if hits*100 < 95*tries {
		t.Errorf("right path first for %d of %d typos, want at least 95%%", hits, tries)
	}
}

// TestNearestPathKEPs: the same on the real k8s-keps layout of the shared
// corpus (skipped when it is absent).
func TestNearestPathKEPs(t *testing.T) {
	t.Parallel()
	paths, err := markdown.Walk(os.DirFS("/work/shared/corpus/k8s-keps"), nil)
	if err != nil || len(paths) == 0 {
		t.Skipf("no k8s-keps corpus: %v", err)
	}
	const tries = 300
	hits := typoHits(t, rand.New(rand.NewSource(15)), paths, tries)
	t.Logf("%d paths: right path first for %d of %d typos", len(paths), hits, tries)
	if hits*100 < 95*tries {
		t.Errorf("right path first for %d of %d typos, want at least 95%%", hits, tries)
	}
}

// TestOSA: the banded distance with its early stop is the textbook one,
// capped at limit+1.
func TestOSA(t *testing.T) {
	t.Parallel()
	ref := func(a, b string) int {
		ra, rb := []rune(a), []rune(b)
		d := make([][]int, len(ra)+1)
		for i := range d {
			d[i] = make([]int, len(rb)+1)
			d[i][0] = i
		}
		for j := range d[0] {
			d[0][j] = j
		}
		for i := 1; i <= len(ra); i++ {
			for j := 1; j <= len(rb); j++ {
				cost := 1
				if ra[i-1] == rb[j-1] {
					cost = 0
				}
				d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
				if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
					d[i][j] = min(d[i][j], d[i-2][j-2]+1)
				}
			}
		}
		return d[len(ra)][len(rb)]
	}
	rng := rand.New(rand.NewSource(3))
	word := func() string {
		r := make([]rune, rng.Intn(12))
		for i := range r {
			r[i] = []rune("abcé/")[rng.Intn(5)]
		}
		return string(r)
	}
	for range 20000 {
		a, b, limit := word(), word(), rng.Intn(8)
		if got, want := osa(a, b, limit), min(ref(a, b), limit+1); got != want {
			t.Fatalf("osa(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	}
	if d := osa("docs/setup.md", "docs/setpu.md", 3); d != 1 {
		t.Errorf("a swap costs %d, want 1", d)
	}
}

// TestSuggestPathsTool: get_document's "did you mean" for a mistyped path
// among many README.md files names the right one first, from the index's
// catalogue; a document the catalogue lists but the disk no longer has is
// not suggested; without an index the folder is walked instead.
func TestSuggestPathsTool(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("keps/sig-%c/%d-feature-%d/README.md", 'a'+i%5, 100+i, i)] = fmt.Sprintf("# KEP %d\n\nText.\n", i)
	}
	dir := docProject(t, files)
	var srv *Server
	cs := connect(t, dir, func(s *Server) { srv = s })
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "d", "path": "keps/sig-c/107-featrue-7/README.md"}, nil),
		`not found`, `Did you mean "keps/sig-c/107-feature-7/README.md"`)
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "d", "path": "keps/sig-c/107-feature-7.md"}, nil),
		`Did you mean "keps/sig-c/107-feature-7/README.md"`)

	// Gone from disk, still in the catalogue: not offered.
	if err := os.RemoveAll(filepath.Join(dir, ".context", "packages", "d", "keps", "sig-c", "107-feature-7")); err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "get_document", map[string]any{"package": "d", "path": "keps/sig-c/107-featrue-7/README.md"}, nil)
	if strings.Contains(text(res), "107-feature-7/README.md") {
		t.Errorf("a deleted document is suggested: %s", text(res))
	}

	// No index at all: the folder is walked. The first server is closed
	// first: its watch may not have seen the deletion yet, and a re-index
	// it starts would write into the index being removed.
	cs.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".context", "index")); err != nil {
		t.Fatal(err)
	}
	cs = connect(t, dir)
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "d", "path": "keps/sig-b/101-feature-l/README.md"}, nil),
		`Did you mean "keps/sig-b/101-feature-1/README.md"`)
	if _, err := os.Stat(filepath.Join(dir, ".context", "index", "catalog.json")); err == nil {
		t.Error("get_document built an index: the walk was not tested")
	}
}

// TestNotFoundNeverSuggestsItself (audit17 finding 15): a document not
// found when it was read but there when the suggestions are looked up (an
// update replacing it in between) is not offered as its own "did you
// mean"; the others still are.
func TestNotFoundNeverSuggestsItself(t *testing.T) {
	t.Parallel()
	dir := docProject(t, map[string]string{"runbooks/zebra.md": "# Zebra\n", "runbooks/zebras.md": "# Zebras\n"})
	var srv *Server
	connect(t, dir, func(s *Server) { srv = s })
	err := srv.docNotFound(srv.snapshot(), "d", "runbooks/zebra.md", "runbooks/zebra.md", nil)
	if err == nil || strings.Contains(err.Error(), `"runbooks/zebra.md"?`) || strings.Contains(err.Error(), `Did you mean "runbooks/zebra.md"`) {
		t.Errorf("suggests the path asked for: %v", err)
	}
	if err == nil || !strings.Contains(err.Error(), `runbooks/zebras.md`) {
		t.Errorf("the other document is not suggested: %v", err)
	}
}
