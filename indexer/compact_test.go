package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/ctx-dev/ctx/internal/confine"
)

// indexReader is the index reader of idx's present snapshot, for a test
// to read below bleve's search; the caller closes it before idx.
func indexReader(t *testing.T, idx bleve.Index) index.IndexReader {
	t.Helper()
	adv, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	return rdr
}

// liveSegments is the number of segments of the live bleve directory of
// contextDir, as a reader opening it sees them.
func liveSegments(t *testing.T, contextDir string) int {
	t.Helper()
	var m meta
	if err := readJSON(filepath.Join(contextDir, "index", metaFile), &m); err != nil {
		t.Fatal(err)
	}
	idx, err := bleve.OpenUsing(filepath.Join(contextDir, "index", m.Bleve), map[string]any{"read_only": true})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	rdr := indexReader(t, idx)
	defer rdr.Close()
	snap, ok := rdr.(*scorch.IndexSnapshot)
	if !ok {
		t.Fatalf("reader %T, not scorch's", rdr)
	}
	return len(snap.Segments())
}

func searchJSON(t *testing.T, contextDir string, texts ...string) string {
	t.Helper()
	r, err := OpenReader(contextDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all [][]Hit
	for _, q := range texts {
		hits, err := r.Search(context.Background(), Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, hits)
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRebuildOneSegment: a full build goes live as one segment, however
// many batches wrote it (a reader's open and each search pay per segment),
// with the same hits as a build written in one batch; an incremental Sync
// after it still adds and finds a new document.
func TestRebuildOneSegment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	queries := []string{"how do I roll back a release", "pager escalate", "go style errors", "flamingo", "deploy"}

	one := setupCorpus(t)
	if _, err := Sync(ctx, one, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	many := setupCorpus(t)
	rep, err := Sync(ctx, many, testPackages(), Options{batchDocs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks < 4 {
		t.Fatalf("the corpus has %d chunks; the test needs several batches", rep.Chunks)
	}
	if !rep.merged {
		t.Errorf("a full build of %d chunks in batches of one was not merged", rep.Chunks)
	}
	if n := liveSegments(t, many); n != 1 {
		t.Errorf("a full build of %d chunks in batches of one: %d segments live; want 1", rep.Chunks, n)
	}
	if a, b := searchJSON(t, one, queries...), searchJSON(t, many, queries...); a != b {
		t.Errorf("hits of the build in batches of one:\n%s\nof the build in one batch:\n%s", b, a)
	}

	writeFiles(t, many, "ops", map[string]string{"runbook.md": "# Runbook\n\nThe quokka procedure restarts the fleet.\n"})
	rep, err = Sync(ctx, many, testPackages(), Options{batchDocs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rebuilt || rep.Added != 1 {
		t.Errorf("incremental sync: %+v; want one document added, no rebuild", rep)
	}
	r, err := OpenReader(many)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "quokka"})
	if err != nil || len(hits) != 1 || hits[0].Path != "runbook.md" {
		t.Errorf("quokka after the incremental sync: %+v, %v; want runbook.md", hits, err)
	}
}

// TestRebuildTooBigToMerge: a full build over the bound is not merged into
// one segment (the merge would hold the whole index in memory), and its
// hits are the same as the merged build's.
func TestRebuildTooBigToMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	queries := []string{"how do I roll back a release", "pager escalate", "flamingo"}

	merged := setupCorpus(t)
	if _, err := Sync(ctx, merged, testPackages(), Options{batchDocs: 1}); err != nil {
		t.Fatal(err)
	}
	big := setupCorpus(t)
	rep, err := Sync(ctx, big, testPackages(), Options{batchDocs: 1, compactMax: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Not the live segments: scorch's background merger may fold five tiny
	// segments together on its own, whenever it gets to them.
	if rep.merged {
		t.Errorf("a full build of %d chunks over a bound of 2 was merged into one segment; want it left as written", rep.Chunks)
	}
	if a, b := searchJSON(t, merged, queries...), searchJSON(t, big, queries...); a != b {
		t.Errorf("hits of the build left in segments:\n%s\nof the merged build:\n%s", b, a)
	}
}

// TestBatchFullHalvedForMergedRebuild: a rebuild that compact will merge
// writes half batches (half the analysis held at a time); past the bound,
// and in an incremental sync, batches are whole.
func TestBatchFullHalvedForMergedRebuild(t *testing.T) {
	idx, err := bleve.NewMemOnly(bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for _, c := range []struct {
		rebuild bool
		chunks  int
		pending int
		want    bool
	}{
		{rebuild: true, chunks: 10, pending: batchBytes/2 + 1, want: true},
		{rebuild: true, chunks: 10, pending: batchBytes/2 - 1, want: false},
		{rebuild: true, chunks: 101, pending: batchBytes/2 + 1, want: false},
		{rebuild: true, chunks: 101, pending: batchBytes, want: true},
		{rebuild: false, chunks: 10, pending: batchBytes/2 + 1, want: false},
		{rebuild: false, chunks: 10, pending: batchBytes, want: true},
	} {
		w := &indexWriter{rebuild: c.rebuild, chunks: c.chunks, pending: c.pending, maxDocs: batchDocs, compactMax: 100, batch: idx.NewBatch()}
		if got := w.batchFull(); got != c.want {
			t.Errorf("rebuild %v, %d chunks, %d bytes pending: full %v; want %v", c.rebuild, c.chunks, c.pending, got, c.want)
		}
	}
	w := &indexWriter{rebuild: true, maxDocs: 4, compactMax: 100, batch: idx.NewBatch()}
	for i := range 2 {
		w.batch.Index(fmt.Sprint(i), map[string]any{"t": "x"})
	}
	if !w.batchFull() {
		t.Errorf("a rebuild's batch of 2 chunks at 4 a batch is not full; want half of 4")
	}
}

// heronCorpus is the test corpus with 14 more small pages in guides/many
// (more batches than scorch's ten segments a merge at one page a batch),
// and those pages.
func heronCorpus(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := setupCorpus(t)
	files := map[string]string{}
	for i := range 14 {
		files[fmt.Sprintf("many/%02d.md", i)] = fmt.Sprintf("# Page %d\n\nThe heron number %d waits by the river.\n", i, i)
	}
	writeFiles(t, dir, "guides", files)
	return dir, files
}

// TestRebuildMergesEachSegmentOnce: a rebuild that compact merges holds
// scorch's merges until then (heldMergePlan) and merges every segment its
// batches wrote in one task (compactMergePlan): the merges take in each
// segment once. Under scorch's own plans, its merger folds ten segments
// at a time as the build goes, and compact ten a task again until one is
// left, so the segments of a build of more than ten batches were taken in
// twice or more; the hits are the same.
func TestRebuildMergesEachSegmentOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, files := heronCorpus(t)
	rep, err := Sync(ctx, dir, testPackages(), Options{batchDocs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.batches < 12 {
		t.Fatalf("%d batches; the test needs more than ten segments", rep.batches)
	}
	if !rep.merged || rep.foldedSegs != rep.batches {
		t.Errorf("a rebuild of %d batches: merged %v, its merges took in %d segments; want merged, each of the %d once", rep.batches, rep.merged, rep.foldedSegs, rep.batches)
	}
	if n := liveSegments(t, dir); n != 1 {
		t.Errorf("%d segments live; want 1", n)
	}
	// The held plan is the build's alone: the index on disk keeps no merge
	// plan, so the updates after it are merged under scorch's own.
	var m meta
	if err := readJSON(filepath.Join(dir, "index", metaFile), &m); err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Config map[string]any `json:"config"`
	}
	if err := readJSON(filepath.Join(dir, "index", m.Bleve, "index_meta.json"), &stored); err != nil {
		t.Fatal(err)
	}
	if plan, ok := stored.Config["scorchMergePlanOptions"]; ok {
		t.Errorf("the published index stores the merge plan %v: every later update would open it with merges held", plan)
	}
	one := setupCorpus(t)
	writeFiles(t, one, "guides", files)
	if _, err := Sync(ctx, one, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	queries := []string{"heron river", "page 7", "how do I roll back a release", "flamingo"}
	if a, b := searchJSON(t, one, queries...), searchJSON(t, dir, queries...); a != b {
		t.Errorf("hits of the build in batches of one:\n%s\nof the build in one batch:\n%s", b, a)
	}
}

// TestRebuildPastBoundReleasesMerges: a rebuild that outgrows compactMax
// is given scorch's own merge plan back (compact will not merge it), and
// its hits are those of the merged build.
func TestRebuildPastBoundReleasesMerges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, files := heronCorpus(t)
	rep, err := Sync(ctx, dir, testPackages(), Options{batchDocs: 1, compactMax: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.merged {
		t.Errorf("a rebuild of %d chunks over a bound of 3 was merged by compact", rep.Chunks)
	}
	one := setupCorpus(t)
	writeFiles(t, one, "guides", files)
	if _, err := Sync(ctx, one, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	queries := []string{"heron river", "page 7", "flamingo"}
	if a, b := searchJSON(t, one, queries...), searchJSON(t, dir, queries...); a != b {
		t.Errorf("hits of the build past the bound:\n%s\nof the build in one batch:\n%s", b, a)
	}
}

// TestHoldMergesOnlySmallRebuilds: a rebuild holds scorch's merges when
// its files are at most heldMaxBytes; a bigger one, and an incremental
// Sync, keep scorch's merges as they go.
func TestHoldMergesOnlySmallRebuilds(t *testing.T) {
	t.Parallel()
	small := []job{{f: fileStat{size: heldMaxBytes / 2}}, {f: fileStat{size: heldMaxBytes / 2}}}
	big := append(append([]job{}, small...), job{f: fileStat{size: 1}})
	for _, c := range []struct {
		rebuild bool
		jobs    []job
		want    bool
	}{
		{true, small, true},
		{true, nil, true},
		{true, big, false},
		{false, small, false},
	} {
		w := newWriter(confine.Dir{}, "", &syncPlan{rebuild: c.rebuild, jobs: c.jobs}, Options{})
		if w.hold != c.want {
			t.Errorf("rebuild %v, %d bytes of files: hold %v; want %v", c.rebuild, jobBytes(c.jobs), w.hold, c.want)
		}
	}
}
