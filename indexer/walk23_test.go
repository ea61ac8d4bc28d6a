package indexer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/project"
)

// TestWalkRecordRewrittenOnceSettled (walk23): a record that stopped
// holding without a document changing (a file that is no document added
// to a folder of the dir source: the folder's stamp moves) is not trusted,
// and no record is made of the full walk while the folder is within the
// settling time (the old record stays in walks.bin); the first check after
// it settled records the walk again, and the checks after it use the
// record, both packages' alike. Nothing outside the project's folders and
// its walks.bin decides it.
func TestWalkRecordRewrittenOnceSettled(t *testing.T) {
	t.Parallel()
	root, ctxDir, pkgs := recordProject(t)
	r := recordReader(t, root, ctxDir, pkgs) // 2 from the record, 2 walked
	recPath := filepath.Join(ctxDir, project.IndexDir, walkRecordFile)
	before, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	pastClock(t, t.TempDir(), root)
	writeFile(t, filepath.Join(root, "docs/img/other.png"), "no document")

	check := func(step string, settle time.Duration, want [2]int64) {
		t.Helper()
		r.walkSettle = settle
		used, walked := r.walks[0].Load(), r.walks[1].Load()
		if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
			t.Fatalf("%s: Freshness = %+v, %v; want fresh", step, f, err)
		}
		if got := [2]int64{r.walks[0].Load() - used, r.walks[1].Load() - walked}; got != want {
			t.Fatalf("%s: packages from the record, walked = %v, want %v", step, got, want)
		}
	}
	// The folder changed a moment ago (a settling time no run outlasts):
	// docs walked in full, lib from the record, and no record written.
	check("unsettled", 1000*time.Hour, [2]int64{1, 1})
	if now, err := os.ReadFile(recPath); err != nil || string(now) != string(before) {
		t.Fatalf("walks.bin rewritten with the folder unsettled (err %v)", err)
	}
	// Settled: docs walked once more and recorded, then both from the record.
	check("settled", 0, [2]int64{1, 1})
	check("after", 0, [2]int64{2, 0})
	check("after, again", walkRecordSettle, [2]int64{2, 0})
}
