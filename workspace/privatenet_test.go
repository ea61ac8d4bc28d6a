package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// allowPrivateNetwork is the one way a test lets the committed specs of
// aliases reach the private network (a git server on 127.0.0.1): the
// user's own, `ctx install --allow-outside ALIAS` (AllowOutside), recorded
// in context.local.json. A test that hand-writes a manifest naming such a
// server calls it, as a user would; the rule has no test switch.
func allowPrivateNetwork(t *testing.T, w *Workspace, aliases ...string) {
	t.Helper()
	if err := w.AllowOutside(aliases, false); err != nil {
		t.Fatal(err)
	}
}

// serveUpstream serves a bare copy of the fixture's upstream over smart
// HTTP on 127.0.0.1 and returns its URL and server.
func (f *fixture) serveUpstream() (string, *gittest.Server) {
	t := f.t
	t.Helper()
	root := filepath.Join(f.tmp, "srv")
	gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, "up.git"))
	s, err := gittest.Serve(root, gittest.ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL + "/up.git", s
}

// writeCommitted writes the committed manifest with specs, as a
// teammate's commit (or a pull) brings it.
func writeCommitted(t *testing.T, projectDir string, specs ...project.PackageSpec) {
	t.Helper()
	data, err := project.MarshalManifest(&project.Manifest{Packages: specs})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(projectDir, project.DirName, project.ManifestName), string(data))
}

// TestCommittedGitSourceOnPrivateNetwork (netguard18): a git source the
// committed manifest names on loopback, a private or a link-local address
// (the cloud's metadata service) is refused before any request, with
// where it is named and how to allow it; allowed (install
// --allow-outside), it installs; and the allowance is its origin's, so a
// pull that points the alias at another port is refused again.
func TestCommittedGitSourceOnPrivateNetwork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	url, s := f.serveUpstream()
	writeCommitted(t, f.project,
		project.PackageSpec{Alias: "api", Source: url, Path: "guides"},
		project.PackageSpec{Alias: "meta", Source: "http://169.254.169.254/latest/meta-data.git"},
	)
	w := f.open(f.project)
	r, err := w.Install(bg, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Packages {
		if p.Action != Failed || gitengine.KindOf(p.Err) != gitengine.KindPrivate {
			t.Fatalf("%s: %v %v, want failed: private network refused", p.Alias, p.Action, p.Err)
		}
		msg := p.Err.Error()
		for _, want := range []string{"private network refused", project.Rel(project.ManifestName) + ":", "package \"" + p.Alias + "\" is committed", "ctx install --allow-outside " + p.Alias, project.Rel(project.LocalName)} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %s\nwant it to say %q", p.Alias, msg, want)
			}
		}
	}
	if !strings.Contains(r.Packages[1].Err.Error(), "169.254.169.254 is a link-local address") {
		t.Errorf("meta: %v, want the address named", r.Packages[1].Err)
	}
	if n := s.Requests(); n != 0 {
		t.Fatalf("the server saw %d requests from a refused install, want 0", n)
	}
	if _, err := os.Stat(w.pkgDir("api")); err == nil {
		t.Fatal("a refused package was installed")
	}

	allowPrivateNetwork(t, w, "api")
	local := readFile(t, filepath.Join(f.project, project.DirName, project.LocalName))
	if !strings.Contains(local, `"privateNetwork": true`) || !strings.Contains(local, strings.TrimSuffix(url, "/up.git")) {
		t.Fatalf("context.local.json after --allow-outside api:\n%s", local)
	}
	w.Close()
	w = f.open(f.project)
	r, _ = w.Install(bg, InstallOptions{}) // meta still fails
	if got := actions(r); !strings.Contains(got, "api:installed") || !strings.Contains(got, "meta:failed") {
		t.Fatalf("allowed: %s", got)
	}

	// The same alias at another port (a pull) is refused again.
	other, s2 := f.serveUpstream2()
	writeCommitted(t, f.project, project.PackageSpec{Alias: "api", Source: other, Path: "guides"})
	w.Close()
	w = f.open(f.project)
	r, err = w.Update(bg, nil, UpdateOptions{})
	if err == nil {
		for _, p := range r.Packages {
			err = p.Err
		}
	}
	if gitengine.KindOf(err) != gitengine.KindPrivate || s2.Requests() != 0 {
		t.Fatalf("alias moved to another origin: %v (%d requests), want refused before any", err, s2.Requests())
	}
}

// serveUpstream2 is serveUpstream on a second server (another port).
func (f *fixture) serveUpstream2() (string, *gittest.Server) {
	t := f.t
	t.Helper()
	root := filepath.Join(f.tmp, "srv2")
	gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, "up.git"))
	s, err := gittest.Serve(root, gittest.ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL + "/up.git", s
}

// TestAddRecordsPrivateNetwork (netguard18): `ctx add` of a git source on
// the private network is the user's word: it installs, and the origin is
// allowed in context.local.json, so the committed spec keeps working for
// the user; a teammate's clone (no context.local.json) is refused until
// they allow it. A registry the manifest names (NoAllowOutside) is not
// the user's word: nothing is fetched or allowed.
func TestAddRecordsPrivateNetwork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	url, s := f.serveUpstream()
	w := f.open(f.project)
	r, err := w.Add(bg, []project.PackageSpec{{Source: url, Path: "team", Alias: "hb"}}, AddOptions{NoAllowOutside: true})
	if err == nil {
		for _, p := range r.Packages {
			err = p.Err
		}
	}
	if gitengine.KindOf(err) != gitengine.KindPrivate || !strings.Contains(err.Error(), "ctx add "+url+" --path team --alias hb") || s.Requests() != 0 {
		t.Fatalf("add from the manifest's registry: %v (%d requests), want refused with the ctx add to run", err, s.Requests())
	}
	if _, err := os.Stat(filepath.Join(f.project, project.DirName, project.LocalName)); err == nil {
		t.Fatal("the manifest's registry allowed something")
	}

	f.must(w.Add(bg, []project.PackageSpec{{Source: url, Path: "team", Alias: "hb"}}, AddOptions{}))
	m := w.Manifest()
	want, _ := project.GitPrivateAllow(project.PackageSpec{Source: url})
	if !m.AllowsWeb(want) {
		t.Fatalf("after ctx add: allowances %+v, want %+v", m.AllowWeb, want)
	}
	w.Close()
	w = f.open(f.project)
	if r := f.must(w.Install(bg, InstallOptions{})); actions(r) != "hb:unchanged" {
		t.Fatalf("the user's install: %s", actions(r))
	}

	// A teammate, on another machine: their own object cache.
	mate := filepath.Join(f.tmp, "mate")
	copyProject(t, f.project, mate)
	o := f.opts()
	o.EngineOptions.CacheDir = filepath.Join(f.tmp, "mate-cache")
	wm, err := Open(mate, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wm.Close() })
	r, err = wm.Install(bg, InstallOptions{})
	if err != nil || len(r.Packages) != 1 || gitengine.KindOf(r.Packages[0].Err) != gitengine.KindPrivate {
		t.Fatalf("a teammate's clone: %+v %v, want hb refused", r, err)
	}
	allowPrivateNetwork(t, wm, "hb")
	if r := f.must(wm.Install(bg, InstallOptions{})); actions(r) != "hb:installed" {
		t.Fatalf("the teammate, allowed: %s", actions(r))
	}
}

// TestManifestRegistryOutsidePath (red17 finding 5, kept when the scripts
// moved to a registry the user named): a repository on this machine
// outside the project that the manifest's registry offers
// (NoAllowOutside) fails with the ctx add to run, and nothing is allowed.
func TestManifestRegistryOutsidePath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	r, err := w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team", Alias: "hb"}}, AddOptions{NoAllowOutside: true})
	if err == nil {
		for _, p := range r.Packages {
			err = p.Err
		}
	}
	if err == nil || !strings.Contains(err.Error(), "leads outside the project") || !strings.Contains(err.Error(), "ctx add "+f.upstream+" --path team --alias hb") {
		t.Fatalf("add from the manifest's registry: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.project, project.DirName, project.LocalName)); err == nil {
		t.Fatal("the manifest's registry allowed something")
	}
}
