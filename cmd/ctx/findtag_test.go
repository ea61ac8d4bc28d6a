package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindUnknownTagIsUsageError (review of fixA16, 5): `ctx find --tag`
// with a tag no indexed document has is a usage error naming a typo's
// likely meaning, as `ctx search --tag` is, not an empty answer; a known
// tag finds its document.
func TestFindUnknownTagIsUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	do := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"-C", proj}, args...), &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, testEnv, dir)
		return code, out.String(), errOut.String()
	}
	if err := os.MkdirAll(filepath.Join(proj, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "docs", "guide.md"), []byte("---\ntags: [getting started]\n---\n# Guide\n\nThe zanzibar setting.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "--project", "demo"}, {"add", "./docs"}, {"index"}} {
		if code, _, errOut := do(args...); code != ExitOK {
			t.Fatalf("ctx %q: exit %d: %s", args, code, errOut)
		}
	}
	if code, out, errOut := do("find", "title=Guide", "--tag", "Getting Started"); code != ExitOK || !strings.Contains(out, "guide.md") {
		t.Errorf("find --tag 'Getting Started': exit %d, stdout %q, stderr %q; want guide.md", code, out, errOut)
	}
	code, out, errOut := do("find", "title=Guide", "--tag", "getting")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, `tag "getting"`) || !strings.Contains(errOut, `did you mean "getting started"?`) {
		t.Errorf("find --tag getting: exit %d, stdout %q, stderr %q; want exit 2 suggesting getting started", code, out, errOut)
	}
}
