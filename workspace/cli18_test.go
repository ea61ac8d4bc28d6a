package workspace

import (
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer"
)

// TestCli18IndexInterruptedWording: Ctrl-C after a package is in place but
// before the index is updated warned "the index was not updated: context
// canceled", Go's words. It says "interrupted" and what happens next.
func TestCli18IndexInterruptedWording(t *testing.T) {
	f := newFixture(t)
	w := f.open(f.project)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep := w.syncIndex(ctx, nil, indexer.Options{}); rep != nil {
		t.Fatalf("syncIndex on a cancelled context reported %+v", rep)
	}
	got := f.log.String()
	if strings.Contains(got, "context canceled") {
		t.Errorf("warning has Go's words: %q", got)
	}
	if !strings.Contains(got, "the index was not updated: interrupted") {
		t.Errorf("warning = %q, want it to say the index update was interrupted", got)
	}
}
