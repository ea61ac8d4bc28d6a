package workspace

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// lockEntries returns each lock entry's bytes as the file holds them.
func lockEntries(t *testing.T, dir string) map[string]string {
	t.Helper()
	var l struct {
		Packages map[string]json.RawMessage `json:"packages"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, project.DirName, project.LockName))), &l); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for a, raw := range l.Packages {
		out[a] = string(raw)
	}
	return out
}

// A package is outdated when its folder changed, not when its repository
// did: two packages from two folders of one repository, a commit that
// changes one folder; outdated lists that one, update moves its entry
// only, the other entry's bytes and files stay as they were. Over smart
// HTTP (trees fetched, no blob of the unchanged folder) and from a local
// path.
func TestOutdatedPerFolder(t *testing.T) {
	t.Parallel()
	for _, remote := range []bool{true, false} {
		f := newFixture(t)
		source := f.upstream
		push := func() {}
		if remote {
			root := filepath.Join(f.tmp, "srv")
			gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, "docs.git"))
			srv, err := gittest.Serve(root, gittest.ServeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			source = srv.URL + "/docs.git"
			push = func() { gittest.Push(t, f.upstream, filepath.Join(root, "docs.git"), "master") }
		}
		w := f.open(f.project)
		f.must(w.Add(bg, []project.PackageSpec{
			{Alias: "api", Source: source, Path: "guides/api"},
			{Alias: "team", Source: source, Path: "team"},
		}, AddOptions{}))
		before := lockEntries(t, f.project)
		teamFiles := tree(t, w.pkgDir("team"))

		head := f.commit("api only", map[string]string{"guides/api/v2/new.md": "# New\n"})
		push()
		ch, err := outdatedOf(w)
		if err != nil || len(ch) != 1 || ch[0].Alias != "api" || ch[0].NewCommit != head {
			t.Fatalf("remote=%v: outdated = %+v, %v; want api only, at %s", remote, ch, err, head)
		}
		r := f.must(w.Update(bg, nil, UpdateOptions{}))
		if actions(r) != "api:updated team:unchanged" {
			t.Fatalf("remote=%v: update: %s", remote, actions(r))
		}
		after := lockEntries(t, f.project)
		if after["team"] != before["team"] {
			t.Fatalf("remote=%v: team's lock entry changed:\n%s\n%s", remote, before["team"], after["team"])
		}
		if after["api"] == before["api"] || readLock(t, f.project).Packages["api"].Rev != head {
			t.Fatalf("remote=%v: api's entry did not move: %s", remote, after["api"])
		}
		if got := tree(t, w.pkgDir("team")); len(got) != len(teamFiles) {
			t.Fatalf("remote=%v: team's files changed", remote)
		}
		// Up to date now: nothing is outdated, update changes nothing.
		if ch, err := outdatedOf(w); err != nil || len(ch) != 0 {
			t.Fatalf("remote=%v: outdated after update = %+v, %v", remote, ch, err)
		}
	}
}
