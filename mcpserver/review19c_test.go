package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
)

// TestReview19cOverviewOffsetReadsOnePackage: the outline says "read a
// package's part with offset=its line"; what that call reads is that
// package's part, not the packages after it too (round 19: offset=85, the
// second of four packages, read three packages, 14,863 B).
func TestReview19cOverviewOffsetReadsOnePackage(t *testing.T) {
	t.Parallel()
	aliases := []string{"alpha", "beta", "gamma"}
	cs := connect(t, overviewProject(t, 40, aliases...))
	var ov DocumentOut
	res := call(t, cs, "get_overview", nil, &ov)
	if res.IsError || !ov.Outline {
		t.Fatalf("want an outline: %s", clientView(t, res))
	}
	for _, a := range aliases {
		if !strings.Contains(ov.Text, "## "+a+"\n") {
			t.Fatalf("package %s is not in the outline:\n%s", a, ov.Text)
		}
		args := map[string]any{"package": a} // agent20: a key, not line numbers
		var part DocumentOut
		res := call(t, cs, "get_overview", args, &part)
		if res.IsError || !strings.HasPrefix(part.Text, "## "+a+"\n") {
			t.Fatalf("get_overview %v: %.200q", args, part.Text)
		}
		if !strings.Contains(part.Text, a+" topic 39") {
			t.Errorf("get_overview %v does not read all of %s's part", args, a)
		}
		for _, o := range aliases {
			if o != a && strings.Contains(part.Text, "## "+o+"\n") {
				t.Errorf("get_overview %v, %s's part as the outline says, reads %s's part too (%d lines)", args, a, o, part.EndLine-part.StartLine+1)
			}
		}
	}
}

// TestReview19cOverviewManyPackages: with more packages than the outline
// holds, it counts the packages it leaves out, all of them: INDEX.md
// itself lists only some of 300 (its own budget), and the outline said
// "… and 143 more packages" of the 265 it did not name.
func TestReview19cOverviewManyPackages(t *testing.T) {
	t.Parallel()
	var aliases []string
	for i := range 300 {
		aliases = append(aliases, fmt.Sprintf("pkg%03d", i))
	}
	cs := connect(t, overviewProject(t, 1, aliases...))
	var ov DocumentOut
	res := call(t, cs, "get_overview", nil, &ov)
	if res.IsError || !ov.Outline {
		t.Fatalf("want an outline: %.500s", clientView(t, res))
	}
	named := len(regexp.MustCompile(`(?m)^## pkg\d+$`).FindAllString(ov.Text, -1))
	m := regexp.MustCompile(`… and (\d+) more packages`).FindStringSubmatch(ov.Text)
	if named == 0 || m == nil {
		t.Fatalf("the outline names %d packages and does not count the rest:\n%s", named, ov.Text)
	}
	if more, _ := strconv.Atoi(m[1]); named+more != len(aliases) {
		t.Errorf("the outline names %d packages and says %d more; %d are installed", named, more, len(aliases))
	}
	// agent20: a package INDEX.md leaves out (its own budget) is read with
	// list_contexts, and get_overview says so.
	wantError(t, call(t, cs, "get_overview", map[string]any{"package": "pkg299"}, nil),
		`INDEX.md has no part for package "pkg299"`, `call list_contexts with package "pkg299"`)
}

// TestReview19cGetLinksCursorSurvivesReindex: a get_links cursor is
// refused when the document's links changed, not when the index was
// rebuilt around them: after an edit of a document many.md does not link
// to, and after the title of the document it links to changed (no link
// moved, none was added or removed), the next page still follows.
func TestReview19cGetLinksCursorSurvivesReindex(t *testing.T) {
	t.Parallel()
	dir := agentViewProject(t, 600)
	ctxDir := filepath.Join(dir, ".context")
	args := map[string]any{"package": "hub", "path": "many.md"}
	cs := connect(t, dir)
	res := call(t, cs, "get_links", args, nil)
	_ = cs.Close()
	next, ok := structured(t, res.StructuredContent)["nextCursor"].(string)
	if res.IsError || !ok {
		t.Fatalf("first page: no nextCursor: %.300s", text(res))
	}
	args["cursor"] = next
	for _, edit := range []struct{ what, file, content string }{
		{"an edit of a document with no link to or from many.md", "lone.md", "# Lone\n\nStill no links, more words.\n"},
		{"a new title of the document many.md links to", "page.md", "# The page, renamed\n\nA page.\n"},
	} {
		writeFile(t, filepath.Join(ctxDir, "packages", "hub", edit.file), edit.content)
		lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{ // agentViewProject's
			"hub": {Source: "https://example.com/hub.git", Ref: "main", Rev: strings.Repeat("c3", 20), Tree: strings.Repeat("d4", 20),
				Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		}}
		if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
			t.Fatal(err)
		}
		cs := connect(t, dir)
		if res := call(t, cs, "get_links", args, nil); res.IsError {
			t.Errorf("after %s, the cursor of page 1 is refused: %s", edit.what, text(res))
		}
		_ = cs.Close()
	}
}

// TestReview19cGetLinksForgedPosition: a cursor with this document's
// state but a position the server never gives (0, or past the end) is
// refused as not the server's, not with "the links changed (the index was
// updated)", which did not happen.
func TestReview19cGetLinksForgedPosition(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 600))
	in := GetLinksIn{Package: "hub", Path: "many.md"}
	res := call(t, cs, "get_links", map[string]any{"package": in.Package, "path": in.Path}, nil)
	next, _ := structured(t, res.StructuredContent)["nextCursor"].(string)
	after, ok, err := decodeCursor(next, linksListing(in))
	state, _, cut := strings.Cut(after, ":")
	if err != nil || !ok || !cut {
		t.Fatalf("first page's cursor %q: %v", next, err)
	}
	for _, pos := range []string{"0", "-3", "100000"} {
		c := encodeCursor(linksListing(in), state+":"+pos)
		res := call(t, cs, "get_links", map[string]any{"package": in.Package, "path": in.Path, "cursor": c}, nil)
		wantError(t, res, "not one this server gave")
		if strings.Contains(text(res), "changed") {
			t.Errorf("position %s: %s", pos, text(res))
		}
	}
}
