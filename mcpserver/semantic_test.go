package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
)

// TestSemanticSearch: with the user's endpoint (a loopback stub whose
// vectors follow a concept table), search and read_relevant find a page
// that shares no word with the query; lexical: true does not; a stopped
// endpoint leaves both answering lexically with a warning.
func TestSemanticSearch(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	writeFile(t, filepath.Join(p.ctxDir, "packages", "guide", "crontab.md"), "# crontab\n\nThe crontab file lists commands for cron to run at fixed times.\n")
	lock, err := lockfiletest.Read(filepath.Join(p.ctxDir, project.LockName))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := indexer.Sync(ctx, p.ctxDir, lockPackages(p.ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	stub := embedtest.Start(t)
	c, err := embed.New(embed.Config{URL: stub.BaseURL(), Model: "stub"}, embed.Options{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.EmbedIndex(ctx, p.ctxDir, c, indexer.EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	sem := &indexer.Semantic{Model: "stub", Embed: func(ctx context.Context, text string) ([]float32, error) {
		v, err := c.Embed(ctx, []string{text}, nil)
		if err != nil {
			return nil, err
		}
		return v[0], nil
	}}
	cs := connect(t, p.dir, func(s *Server) { s.sem = sem })
	found := func(out SearchOut) bool {
		for _, h := range out.Hits[:min(3, len(out.Hits))] {
			if h.Path == "crontab.md" {
				return true
			}
		}
		return false
	}
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "recurring tasks"}, &out)
	if !found(out) || out.Warning != "" {
		t.Errorf("hybrid: %+v, want crontab.md in the top 3, no warning", out)
	}
	call(t, cs, "search", map[string]any{"query": "recurring tasks", "lexical": true}, &out)
	if found(out) {
		t.Errorf("lexical: %+v, want no crontab.md", out.Hits)
	}
	var rr ReadRelevantOut
	call(t, cs, "read_relevant", map[string]any{"query": "recurring tasks"}, &rr)
	inTop3 := false
	for _, sec := range rr.Sections[:min(3, len(rr.Sections))] {
		inTop3 = inTop3 || sec.Path == "crontab.md"
	}
	if !inTop3 {
		t.Errorf("read_relevant: %+v, want crontab.md in the first 3", rr.Sections)
	}
	stub.Close()
	call(t, cs, "search", map[string]any{"query": "crontab"}, &out)
	if len(out.Hits) == 0 || out.Hits[0].Path != "crontab.md" || !strings.Contains(out.Warning, "semantic search off") || !strings.Contains(out.Warning, "lexical results only") {
		t.Errorf("stopped endpoint: %+v", out)
	}
	rr = ReadRelevantOut{}
	call(t, cs, "read_relevant", map[string]any{"query": "crontab"}, &rr)
	if len(rr.Sections) == 0 || !strings.Contains(rr.Warning, "semantic search off") {
		t.Errorf("read_relevant, stopped endpoint: %+v", rr)
	}
}
