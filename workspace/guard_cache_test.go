package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestLockOnlyRefusalHint (fixN18): a lock entry the manifest does not
// name (ctx changes --since over a package removed since) is refused on
// the private network as a committed spec is; its hint must not name
// `ctx install --allow-outside ALIAS`, which takes only the manifest's
// aliases, but what works: the origin to allow in context.local.json.
func TestLockOnlyRefusalHint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	url, _ := f.serveUpstream()
	w := f.open(f.project)
	defer w.Close()
	_, err := w.gitEngine(w.engine(), "gone", nil, url).ListRefs(bg, url)
	var ge *gitengine.Error
	if !errors.As(err, &ge) || ge.Kind != gitengine.KindPrivate {
		t.Fatalf("a lock-only entry on loopback: %v, want refused (private network)", err)
	}
	origin, _ := gitengine.Origin(url)
	if strings.Contains(ge.Hint, "--allow-outside gone") || !strings.Contains(ge.Hint, `{"origin": "`+origin+`", "privateNetwork": true}`) {
		t.Errorf("hint %q: want the origin %s to allow in %s, not install --allow-outside of an alias the manifest does not name", ge.Hint, origin, project.Rel(project.LocalName))
	}
}
