package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/workspace"
)

// audit17 finding 14: setup has no --force; its advice for a package with
// local edits it would remove names `ctx remove ALIAS --force`; the other
// commands keep "run it again with --force".
func TestDirtyAdviceNamesAForceThatExists(t *testing.T) {
	t.Parallel()
	rep := &workspace.Report{Packages: []workspace.PackageResult{{Alias: "h", Action: workspace.Skipped, Reason: workspace.SkipDirty, DirtyFiles: []string{"M intro.md"}}}}
	for _, tt := range []struct{ via, want, not string }{
		{"ctx remove %s --force", "or run `ctx remove h --force`, which first copies", "run it again with --force"},
		{"", "or run it again with --force, which first copies", "ctx remove"},
	} {
		var out, errOut bytes.Buffer
		g := &globalOptions{IO: &IOStreams{Out: &out, ErrOut: &errOut}}
		if err := finishReport(context.Background(), g, t.TempDir(), rep, nil, reportOptions{forceVia: tt.via}); err == nil {
			t.Error("no error for a skipped package")
		}
		if s := errOut.String(); !strings.Contains(s, tt.want) || strings.Contains(s, tt.not) {
			t.Errorf("via %q: stderr %q, want %q and not %q", tt.via, s, tt.want, tt.not)
		}
	}
}
