package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// mixedAudience is a package whose documents are for different projects.
var mixedAudience = map[string]string{
	"public.md":       "# Public\n",
	"for-a.md":        "---\nctx_include: [proj-a]\n---\n# For A\n",
	"for-services.md": "---\ncodex_sync_include: \"*-service\"\n---\n# Services\n",
	"not-temp.md":     "---\nctx_include: [\"*\"]\nctx_exclude: [\"temp-*\"]\n---\n# Not temp\n",
	"broken.md":       "---\nctx_include: 42\n---\n# Broken\n",
	"notes.txt":       "ctx_include: nobody\n",             // text: no front matter, no rules
	"rules.yaml":      "---\nctx_include: [nobody]\n---\n", // YAML, not front matter: no rules
}

// setProject rewrites the manifest's project name (and the audience of
// alias's spec, when audience is not "-"), as an edit by hand would.
func setProject(t *testing.T, w *Workspace, name, alias, audience string) {
	t.Helper()
	m := w.Manifest()
	m.Project = name
	for i := range m.Packages {
		if m.Packages[i].Alias == alias && audience != "-" {
			m.Packages[i].Audience = audience
		}
	}
	if err := w.writeManifest(&m); err != nil {
		t.Fatal(err)
	}
}

func TestAudienceAtInstall(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("git not installed")
	}
	f := newFixture(t)
	repo := filepath.Join(f.tmp, "mixed")
	gittest.NewRepo(t, repo, mixedAudience)
	w := f.open(f.project)
	setProject(t, w, "proj-a", "", "-")
	f.must(w.Add(bg, []project.PackageSpec{{Source: repo, Alias: "mixed"}}, AddOptions{}))

	check := func(name string, want []string, withheld int) {
		t.Helper()
		got := keys(tree(t, w.pkgDir("mixed")))
		if !slices.Equal(got, want) {
			t.Errorf("%s: installed %q, want %q", name, got, want)
		}
		e := readLock(t, f.project).Packages["mixed"]
		if e.Withheld != withheld {
			t.Errorf("%s: lock withheld = %d, want %d", name, e.Withheld, withheld)
		}
		vs, err := w.Verify()
		if err != nil || len(vs) != 1 || !vs[0].OK {
			t.Errorf("%s: verify = %+v, %v", name, vs, err)
		}
		st, err := w.Status()
		if err != nil || len(st) != 0 {
			t.Errorf("%s: status = %+v, %v: a withheld document is not deleted locally", name, st, err)
		}
	}
	check("proj-a", []string{"for-a.md", "not-temp.md", "notes.txt", "public.md", "rules.yaml"}, 2)
	if e := readLock(t, f.project).Packages["mixed"]; e.Audience != "proj-a" {
		t.Errorf("lock audience = %q, want proj-a", e.Audience)
	}
	if !strings.Contains(f.log.String(), "broken.md:2: ctx_include must be a project name pattern or a list of them, not a number (42); document withheld") {
		t.Errorf("no warning with file:line for the malformed value:\n%s", f.log)
	}

	// Another project name: install applies the rules again, same commit.
	setProject(t, w, "temp-service", "", "-")
	r := f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "mixed:installed" || !slices.Equal(r.Packages[0].Withheld, []string{"broken.md", "for-a.md", "not-temp.md"}) {
		t.Errorf("install after the project changed: %s %q", actions(r), r.Packages[0].Withheld)
	}
	check("temp-service", []string{"for-services.md", "notes.txt", "public.md", "rules.yaml"}, 3)

	// Nothing changed: nothing to do, and update agrees.
	if r := f.must(w.Install(bg, InstallOptions{})); actions(r) != "mixed:unchanged" {
		t.Errorf("second install: %s", actions(r))
	}
	if r := f.must(w.Update(bg, nil, UpdateOptions{})); actions(r) != "mixed:unchanged" {
		t.Errorf("update: %s", actions(r))
	}

	// --frozen refuses a lock made for another project.
	setProject(t, w, "proj-b", "", "-")
	if _, err := w.Install(bg, InstallOptions{Frozen: true}); err == nil || !strings.Contains(err.Error(), `mixed was locked with its audience rules applied for project "temp-service", this project is "proj-b"`) {
		t.Errorf("frozen install for another project: %v", err)
	}

	// "audience": "ignore" installs everything.
	setProject(t, w, "proj-b", "mixed", project.AudienceIgnore)
	f.must(w.Install(bg, InstallOptions{}))
	check("ignore", []string{"broken.md", "for-a.md", "for-services.md", "not-temp.md", "notes.txt", "public.md", "rules.yaml"}, 0)
	if e := readLock(t, f.project).Packages["mixed"]; e.Audience != "" {
		t.Errorf("ignored: lock audience = %q", e.Audience)
	}
	// And back: the rules apply again.
	setProject(t, w, "proj-b", "mixed", "")
	f.must(w.Install(bg, InstallOptions{}))
	check("proj-b", []string{"not-temp.md", "notes.txt", "public.md", "rules.yaml"}, 3)

	// A teammate's fresh install from the lock gets the same files.
	mate := filepath.Join(f.tmp, "mate")
	copyProject(t, f.project, mate)
	copyLocal(t, f.project, mate) // the teammate has allowed the same upstream
	wm := f.open(mate)
	f.must(wm.Install(bg, InstallOptions{Frozen: true}))
	if got, want := keys(tree(t, wm.pkgDir("mixed"))), keys(tree(t, w.pkgDir("mixed"))); !slices.Equal(got, want) {
		t.Errorf("teammate installed %q, want %q", got, want)
	}
}

// A lock of packages without rules stays byte for byte.
func TestAudienceNoRulesLockUnchanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides", Alias: "g"}}, AddOptions{}))
	lockPath := filepath.Join(f.project, project.DirName, project.LockName)
	before := readFile(t, lockPath)
	if strings.Contains(before, "audience") || strings.Contains(before, "withheld") {
		t.Errorf("a package without rules records them:\n%s", before)
	}
	setProject(t, w, "other", "", "-")
	if r := f.must(w.Install(bg, InstallOptions{})); actions(r) != "g:unchanged" {
		t.Errorf("install after the project changed, no rules: %s", actions(r))
	}
	if after := readFile(t, lockPath); after != before {
		t.Errorf("lock changed:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(f.project, project.DirName, "packages", "g", "other.md")); err != nil {
		t.Error(err)
	}
}

// A package installed by a ctx that did not apply rules (its state has no
// audienceChecked) is installed again only when it has rules; the other
// is left as it is, edits included (skipped: it is dirty at its locked
// commit), and its state notes the check.
func TestAudienceOlderState(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	repo := filepath.Join(f.tmp, "mixed")
	gittest.NewRepo(t, repo, mixedAudience)
	w := f.open(f.project)
	setProject(t, w, "proj-a", "", "-")
	f.must(w.Add(bg, []project.PackageSpec{{Source: repo, Alias: "mixed", Audience: project.AudienceIgnore}, {Source: f.upstream, Path: "guides", Alias: "g"}}, AddOptions{}))
	setProject(t, w, "proj-a", "mixed", "") // as an older ctx would have left it: every file installed
	for _, a := range []string{"mixed", "g"} {
		st, err := w.readState(a)
		if err != nil {
			t.Fatal(err)
		}
		st.AudienceChecked, st.AudienceIgnored = false, false
		if err := w.writeState(w.statePath(a), st); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(w.pkgDir("g"), "other.md"), "# Edited\n")
	r := f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "g:skipped mixed:installed" {
		t.Errorf("install over older states: %s", actions(r))
	}
	if got := readFile(t, filepath.Join(w.pkgDir("g"), "other.md")); got != "# Edited\n" {
		t.Errorf("g's edit: %q", got)
	}
	if _, err := os.Stat(filepath.Join(w.pkgDir("mixed"), "for-services.md")); err == nil {
		t.Error("for-services.md is still installed for proj-a")
	}
	if st, err := w.readState("g"); err != nil || !st.AudienceChecked {
		t.Errorf("g's state: %+v, %v", st, err)
	}
}
