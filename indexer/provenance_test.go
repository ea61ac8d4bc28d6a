package indexer

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/project"
)

// INDEX.md gives each kind its own provenance line: git its ref (or the
// default branch) and short commit; https its URL, short content hash
// (not cut to its "sha256:" prefix) and fetch date, no branch; dir live.
func TestIndexMDProvenancePerKind(t *testing.T) {
	t.Parallel()
	pkgs := []Package{
		{Alias: "api", Kind: project.KindGit, Source: "https://git.example/api.git", Ref: "v2", Rev: strings.Repeat("a", 40)},
		{Alias: "guide", Kind: project.KindHTTPS, Source: "https://docs.example/guide.md", Rev: "sha256:" + strings.Repeat("0123456789abcdef", 4),
			Fetched: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
		{Alias: "ops", Kind: project.KindGit, Source: "https://git.example/ops.git", Rev: strings.Repeat("b", 40)},
	}
	md, _ := renderIndex(pkgs, nil, 100000, "")
	for _, want := range []string{
		"`https://git.example/api.git` · ref `v2` · commit `aaaaaaa` · 0 documents",
		"`https://docs.example/guide.md` · content `sha256:0123456789ab` · fetched 2026-03-04 · 0 documents",
		"`https://git.example/ops.git` · default branch · commit `bbbbbbb` · 0 documents",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("INDEX.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "default branch") != 1 {
		t.Errorf("an https package shows a branch:\n%s", md)
	}
}
