package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/project"
)

// TestCommittedPrivateSourceNotFromCache (review18c): the object cache is
// shared by every project of the user. A repository the user fetched from
// the private network in one project (their word there) must not land in
// another project because a teammate's commit names the same URL and
// commit: the guard holds whether or not the cache already has the
// commit. Here the server is stopped after the user's own install, so
// only the cache can answer.
func TestCommittedPrivateSourceNotFromCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	url, s := f.serveUpstream()
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: url, Path: "team", Alias: "hb"}}, AddOptions{}))
	w.Close()
	s.Close()

	// Another project of the same user (same cache), whose committed
	// manifest and lock a teammate wrote: no allowance of the user's.
	other := filepath.Join(f.tmp, "other")
	copyProject(t, f.project, other)
	wo := f.open(other)
	r, err := wo.Install(bg, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Packages) != 1 || gitengine.KindOf(r.Packages[0].Err) != gitengine.KindPrivate {
		t.Errorf("a committed source on loopback, answered by the cache: %s %v, want refused (private network)", actions(r), r.Packages[0].Err)
	}
	if _, err := os.Stat(wo.pkgDir("hb")); err == nil {
		t.Error("the private repository's files landed in a project whose user never allowed its origin")
	}
}
