package indexer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
)

// TestCandidateShortcuts checks that searching with accumulatedCandidates
// and allTermCandidates gives what the exhaustive search gives, hit for
// hit (scores and snippets included), on a corpus where each is taken:
// frequent words that share
// hundreds of chunks, rarer ones, several limits, best per document or
// not. CTX_TEST_CONTEXT_DIR names a .context folder (say, bench/scale's
// ten times corpus) to compare on as well, with queries of its words.
func TestCandidateShortcuts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	rng := rand.New(rand.NewPCG(3, 4))
	// Zipf-like: word i drawn with weight 1/(i+1).
	words := strings.Fields("pod node file gate feature scheduling lease volume snapshot webhook admission server " +
		"kernel trait borrow closure archive extract zebra lion tiger heron otter lynx bison koala")
	word := zipfWords(rng, words)
	writeFiles(t, dir, "d", zipfDocs(rng, word, 150, 2, 3, 60))
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	queries := []string{"pod node", "pod node file", "node file", "feature gate", "pod", "pod zebra", "gate zebra lion",
		"scheduling lease volume snapshot", "node node", "the pod of a node", "pod -node", "\"pod node\" file", "package:d pod node"}
	if n := compareAllTerms(t, dir, queries); n[0] == 0 || n[1] == 0 {
		t.Errorf("searches that took accumulatedCandidates, allTermCandidates: %v; want some of each", n)
	} else {
		t.Logf("%v of %d searches took accumulatedCandidates, allTermCandidates", n, len(queries)*6)
	}
	if other := os.Getenv("CTX_TEST_CONTEXT_DIR"); other != "" {
		queries := []string{"borrow checker lifetimes", "pod scheduling", "tar extract archive", "ownership move semantics",
			"graduation criteria beta", "git rebase interactive", "trait objects dynamic dispatch", "kubelet eviction",
			"docker run port", "error handling Result", "feature gate", "find files by name", "closures capture",
			"api server admission webhook", "ssh key", "smart pointers Box", "sidecar containers", "curl post json",
			"cargo workspace", "storage volume snapshot", "grep recursive", "pattern matching enums", "node lease heartbeat",
			"compress gzip", "unsafe raw pointers", "pod", "the pod", "container image", "feature gates graduation"}
		t.Logf("%s: %v of %d searches took accumulatedCandidates, allTermCandidates", other, compareAllTerms(t, other, queries), len(queries)*6)
	}
}

// compareAllTerms searches for each query with allTermCandidates and
// exhaustively, with limits 10, 30 and 50, best per document or not, and
// reports a difference as an error. It returns how many searches took
// accumulatedCandidates and allTermCandidates.
func compareAllTerms(t *testing.T, dir string, queries []string) [2]int64 {
	ctx := context.Background()
	fast, _ := OpenReader(dir)
	defer fast.Close()
	slow, _ := OpenReader(dir)
	defer slow.Close()
	slow.exhaustive = true
	for _, q := range queries {
		for _, limit := range []int{10, 30, 50} {
			for _, best := range []bool{false, true} {
				query := Query{Text: q, Limit: limit, BestPerDocument: best}
				got, err := fast.Search(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				want, err := slow.Search(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%q (limit %d, best per document %v):\n%+v\nexhaustive:\n%+v", q, limit, best, got, want)
				}
			}
		}
	}
	if slow.shortcuts[0].Load() != 0 || slow.shortcuts[1].Load() != 0 {
		t.Errorf("the exhaustive reader took a shortcut")
	}
	return [2]int64{fast.shortcuts[1].Load(), fast.shortcuts[0].Load()}
}

// TestShortcutsLongQueries compares the search with the candidate
// shortcuts (accumulatedCandidates, allTermCandidates) and the exhaustive
// search, hit for hit, on a generated corpus of Zipf-distributed words,
// with 120 queries of 2 to 14 words (past bleve's heap disjunction's 10)
// and two limits; some of them must have taken a shortcut, or the test
// proves nothing.
func TestShortcutsLongQueries(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	rng := rand.New(rand.NewPCG(7, 31))
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("w%dx", i))
	}
	word := zipfWords(rng, words)
	writeFiles(t, dir, "d", zipfDocs(rng, word, 400, 1, 5, 80))
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	fast, _ := OpenReader(dir)
	defer fast.Close()
	slow, _ := OpenReader(dir)
	defer slow.Close()
	slow.exhaustive = true
	searches := 0
	step := 1
	if testtmp.Race {
		// every third query's length under the race detector (153 s of
		// indexer's 479 s, round 15): 3 and 13 are coprime, so the 40
		// queries still take every length, and 3 is odd, so both
		// BestPerDocument values (their words are other draws).
		step = 3
		t.Logf("under -race: 40 of the 120 queries")
	}
	for i := 0; i < 120; i += step {
		var q []string
		for range 2 + i%13 {
			q = append(q, word())
		}
		for _, limit := range []int{1, 20} {
			query := Query{Text: strings.Join(q, " "), Limit: limit, BestPerDocument: i%2 == 1}
			got, err := fast.Search(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			want, err := slow.Search(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			searches++
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q (limit %d, best per document %v):\n%+v\nexhaustive:\n%+v", query.Text, limit, query.BestPerDocument, got, want)
			}
		}
	}
	took := fast.shortcuts[0].Load() + fast.shortcuts[1].Load()
	t.Logf("%d of %d searches took a shortcut", took, searches)
	if took < 10 {
		t.Errorf("%d of %d searches took a shortcut; want at least 10", took, searches)
	}
	if slow.shortcuts[0].Load() != 0 || slow.shortcuts[1].Load() != 0 {
		t.Errorf("the exhaustive reader took a shortcut")
	}
}

// zipfWords returns a draw of words, word i with weight 1/(i+1).
func zipfWords(rng *rand.Rand, words []string) func() string {
	cum := make([]float64, len(words))
	total := 0.0
	for i := range words {
		total += 1 / float64(i+1)
		cum[i] = total
	}
	return func() string {
		x := rng.Float64() * total
		for i, c := range cum {
			if x <= c {
				return words[i]
			}
		}
		return words[len(words)-1]
	}
}

// zipfDocs returns n markdown files fNNN.md of drawn words: a title, then
// minParts to minParts+3 sections of minWords to minWords+spread-1 words.
func zipfDocs(rng *rand.Rand, word func() string, n, minParts, minWords, spread int) map[string]string {
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s %s\n\n", word(), word())
		for s := range minParts + rng.IntN(4) {
			fmt.Fprintf(&b, "## Part %d %s\n\n", s, word())
			for range minWords + rng.IntN(spread) {
				b.WriteString(word() + " ")
			}
			b.WriteString("\n\n")
		}
		files[fmt.Sprintf("f%03d.md", i)] = b.String()
	}
	return files
}
