package indexer

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/tokens"
)

// TestWarmForRecentLinear: warmForRecent builds the text of the record's
// part in one buffer (rv-upd23): it added each line to a string, copying
// the text so far each time, so an update of thousands of packages (4000
// lines of ~120 bytes: 985 MB allocated for a 480 KB text, about a second
// on a loaded machine) paid that before its index was written; 11 MB now.
// The bound leaves room for what the Knows pass allocates. Not parallel:
// TotalAlloc is the process's.
func TestWarmForRecentLinear(t *testing.T) {
	when := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	r := make([]RecentChange, 4000)
	for i := range r {
		r[i] = RecentChange{Alias: fmt.Sprintf("pkg%04d", i), From: "7816305aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", To: "62aa2fcbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", When: when,
			Summary: "1 document, 2 sections changed", Docs: []string{"part3/page303.md: Page, edition 230"}}
	}
	text := 0
	for _, c := range r {
		text += len(recentLine(c))
	}
	dir := t.TempDir()
	tokens.Codec() // a load another test started is not counted here
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	warmed := false
	warmForRecent(dir, r, func() { warmed = true })
	runtime.ReadMemStats(&after)
	if !warmed {
		t.Error("no kept pieces: not warmed")
	}
	t.Logf("allocated %d bytes for a text of %d", after.TotalAlloc-before.TotalAlloc, text)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(128*text); got > limit {
		t.Errorf("warmForRecent allocated %d bytes for a text of %d (bound %d): the text copied line by line", got, text, limit)
	}
}
