package mcpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestVersionedCopies: a package that keeps a copy of its pages per
// release. search gives one hit for the page (the current copy), naming
// the other versions; read_relevant sends one copy and names the others in
// its header; a query naming a version gets that version's copy.
func TestVersionedCopies(t *testing.T) {
	t.Parallel()
	newer := "# Backup\n\nRun a backup of the cluster, then read its logs, its phase and the warnings of each item it saved.\n"
	older := "# Backup\n\nRun a backup of the cluster.\n"
	hooks := "# Hooks\n\nRun a command in a pod before the snapshot.\n"
	cs := connect(t, linksProject(t, map[string]string{
		"docs/main/backup.md": newer, "docs/v1.13/backup.md": newer, "docs/v1.10/backup.md": older,
		"docs/main/hooks.md": hooks, "docs/v1.13/hooks.md": hooks, "docs/v1.10/hooks.md": hooks,
	}))
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "backup cluster"}, &out)
	if len(out.Hits) != 1 || out.Hits[0].Path != "docs/main/backup.md" || !slices.Equal(out.Hits[0].Versions, []string{"v1.13", "v1.10"}) {
		t.Errorf("search: %+v, want one hit, docs/main/backup.md, versions v1.13, v1.10", out.Hits)
	}
	call(t, cs, "search", map[string]any{"query": "backup cluster v1.10"}, &out)
	if len(out.Hits) != 1 || out.Hits[0].Path != "docs/v1.10/backup.md" || !slices.Equal(out.Hits[0].Versions, []string{"main", "v1.13"}) {
		t.Errorf("search naming v1.10: %+v, want docs/v1.10/backup.md, versions main, v1.13", out.Hits)
	}
	var rr ReadRelevantOut
	res := call(t, cs, "read_relevant", map[string]any{"query": "backup cluster"}, &rr)
	var backups int
	for _, s := range rr.Sections {
		if strings.HasSuffix(s.Path, "/backup.md") {
			backups++
		}
	}
	head := res.Content[0].(*mcp.TextContent).Text
	if backups != 1 || !strings.HasPrefix(head, "[1] hub/docs/main/backup.md:") || !strings.Contains(strings.SplitN(head, "\n", 2)[0], " · also in v1.13, v1.10") {
		t.Errorf("read_relevant: %d copies of backup.md, first text %q; want one, the current copy, naming v1.13 and v1.10", backups, head)
	}
}
