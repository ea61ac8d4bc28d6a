package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// planSegment is a segment of a merge plan: its size in documents.
type planSegment struct {
	id         uint64
	full, live int64
}

func (s planSegment) Id() uint64          { return s.id }
func (s planSegment) FullSize() int64     { return s.full }
func (s planSegment) LiveSize() int64     { return s.live }
func (s planSegment) HasVector() bool     { return false }
func (s planSegment) FileSize() int64     { return s.full * 300 }
func (s planSegment) LiveFileSize() int64 { return s.live * 300 }

// writerPlan is incrementalMergePlan(chunks) as scorch reads it: the
// default options with the given ones decoded over them.
func writerPlan(t *testing.T, chunks int) mergeplan.MergePlanOptions {
	t.Helper()
	o := mergeplan.DefaultMergePlanOptions
	b, err := json.Marshal(incrementalMergePlan(chunks))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if err := mergeplan.ValidateMergePlannerOptions(&o); err != nil {
		t.Fatal(err)
	}
	return o
}

// mergesBig reports whether plan merges the segment whose id is 1.
func mergesBig(plan *mergeplan.MergePlan) bool {
	if plan == nil {
		return false
	}
	for _, task := range plan.Tasks {
		for _, s := range task.Segments {
			if s.Id() == 1 {
				return true
			}
		}
	}
	return false
}

// TestIncrementalMergePlan: the segment a one-file update adds to a small
// index is not merged with the whole index (scorch's default floor did,
// after nearly every update of an index under 2,000 chunks); ten such
// segments are merged with one another; an index of 20,000 chunks or more
// plans as scorch's default does.
func TestIncrementalMergePlan(t *testing.T) {
	for _, chunks := range []int{2, 10, 60, 500, 1999, 5000} {
		big := planSegment{id: 1, full: int64(chunks), live: int64(chunks) - 1}
		segs := []mergeplan.Segment{big, planSegment{id: 2, full: 1, live: 1}}
		o := writerPlan(t, chunks)
		plan, err := mergeplan.Plan(segs, &o)
		if err != nil {
			t.Fatal(err)
		}
		if mergesBig(plan) {
			t.Errorf("%d chunks, one segment added: the plan merges the whole index (%+v)", chunks, plan.Tasks)
		}
		if chunks >= 10 && chunks < 2000 {
			// What scorch's default did: the test can tell.
			def := mergeplan.DefaultMergePlanOptions
			if plan, err := mergeplan.Plan(segs, &def); err != nil || !mergesBig(plan) {
				t.Errorf("%d chunks: scorch's default plan no longer merges the whole index (%v): this test proves nothing", chunks, err)
			}
		}
		if chunks < 60 {
			continue
		}
		// Ten updates later: the small segments are merged together, the
		// index's own segment is left as it is.
		for i := range 10 {
			segs = append(segs, planSegment{id: uint64(3 + i), full: 1, live: 1})
		}
		plan, err = mergeplan.Plan(segs, &o)
		if err != nil {
			t.Fatal(err)
		}
		if plan == nil || len(plan.Tasks) == 0 {
			t.Errorf("%d chunks and 11 one-chunk segments: nothing merged", chunks)
		} else if mergesBig(plan) {
			t.Errorf("%d chunks and 11 one-chunk segments: the plan merges the whole index (%+v)", chunks, plan.Tasks)
		}
	}
	for _, chunks := range []int{20000, 21632, 216610} {
		if o := writerPlan(t, chunks); fmt.Sprintf("%+v", o) != fmt.Sprintf("%+v", mergeplan.DefaultMergePlanOptions) {
			t.Errorf("%d chunks: plan %+v; want scorch's default", chunks, o)
		}
	}
}

// TestIncrementalSyncAddsSegment: each one-file change to a small index
// adds one segment beside the index's own instead of rewriting it, and the
// search sees the new text and not the old.
func TestIncrementalSyncAddsSegment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	docs := map[string]string{}
	for i := range 40 {
		docs[fmt.Sprintf("extra/page%02d.md", i)] = fmt.Sprintf("# Page %d\n\n%s\n", i, strings.Repeat("Some documentation text. ", 20))
	}
	writeFiles(t, dir, "ops", docs)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := liveSegments(t, dir); n != 1 {
		t.Fatalf("after the full build: %d segments; want 1", n)
	}
	// Three updates, each of one file: scorch's default merged the segment
	// of the one before into the whole index as soon as the writer opened.
	for i, page := range []string{"extra/page03.md", "extra/page05.md", "extra/page07.md"} {
		writeFiles(t, dir, "ops", map[string]string{page: fmt.Sprintf("# Page\n\nThe wombat procedure %d drains the queue.\n", i)})
		rep, err := Sync(ctx, dir, testPackages(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Rebuilt || rep.Updated != 1 {
			t.Fatalf("incremental sync %d: %+v; want one document updated, no rebuild", i+1, rep)
		}
		if n := liveSegments(t, dir); n != i+2 {
			t.Errorf("after %d one-file updates of a %d-chunk index: %d segments; want %d (the index's own, untouched, and one per update)", i+1, rep.Chunks, n, i+2)
		}
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for q, want := range map[string]int{"wombat": 1, "documentation text": 0} {
		hits, err := r.Search(ctx, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, h := range hits {
			if h.Path == "extra/page07.md" {
				n++
			}
		}
		if n != want {
			t.Errorf("%q: %d hits in extra/page07.md; want %d", q, n, want)
		}
	}
}
