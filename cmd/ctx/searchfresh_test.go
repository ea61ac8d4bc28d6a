package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchFreshKeepsNoHitsOfAnOlderVersion: when another process
// publishes a new index version after the early search read the old one
// and before the freshness check runs (the check then finds the index
// fresh and leaves it alone), the early hits are not kept: the search
// runs again on the version the check found fresh.
func TestSearchFreshKeepsNoHitsOfAnOlderVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	do := func(ctx context.Context, args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(ctx, append([]string{"-C", proj}, args...), &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, testEnv, dir); code != ExitOK {
			t.Fatalf("ctx %q: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	if err := os.MkdirAll(filepath.Join(proj, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	guide := filepath.Join(proj, "docs", "guide.md")
	if err := os.WriteFile(guide, []byte("# Guide\n\nThe zanzibar setting.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	do(bg, "init", "--project", "demo")
	do(bg, "add", "./docs")
	do(bg, "index")
	if err := os.WriteFile(guide, []byte("# Guide\n\nThe zanzibar setting, and the okapi one.\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The early search returns (no okapi in the version it read), then
	// another ctx re-indexes, then the check runs and finds it fresh.
	earlyDone := make(chan struct{})
	hooks := &searchFreshHooks{
		afterEarly: func() { close(earlyDone) },
		beforeCheck: func() {
			<-earlyDone
			do(bg, "index")
		},
	}
	out, errOut := do(context.WithValue(bg, searchFreshHooksKey{}, hooks), "search", "okapi")
	if !strings.Contains(out, "docs/guide.md:") {
		t.Fatalf("search okapi after another process re-indexed: stdout %q, stderr %q; want docs/guide.md", out, errOut)
	}
}
