package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/naming"
)

// planned is what a report says was (or would be) done to one package:
// everything but what only a real run can know (bytes received, the backup
// folder, the index).
func planned(r *Report) string {
	var b strings.Builder
	for _, p := range r.Packages {
		fmt.Fprintf(&b, "%s %s %s→%s reason=%q dirty=%v err=%v\n", p.Alias, p.Action, naming.ShortRev(p.OldCommit, 12), naming.ShortRev(p.NewCommit, 12), p.Reason, p.DirtyFiles, p.Err)
	}
	return b.String()
}

// TestUpdateDryRunMatchesRun: update --dry-run reports exactly what update
// then does (same actions, same commits), and outdated lists the packages
// whose lock entry that plan moves.
func TestUpdateDryRunMatchesRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := filepath.Join(f.tmp, "other")
	gittest.NewRepo(t, other, map[string]string{"notes/a.md": "# A\n"})
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{
		{Alias: "moved", Source: f.upstream, Path: "guides/api"},
		{Alias: "dirty", Source: f.upstream, Path: "guides/api"},
		{Alias: "cleansame", Source: other, Path: "notes"},
		{Alias: "dirtysame", Source: other, Path: "notes"},
		{Alias: "reref", Source: other, Path: "notes"},
	}, AddOptions{}))
	// upstream moves; other does not.
	f.commit("more", map[string]string{"guides/api/v2/new.md": "# New\n"})
	// reref's ref changes to a tag of the commit it has.
	gittest.MustGit(t, other, "tag", "v1")
	m := w.Manifest()
	for i := range m.Packages {
		if m.Packages[i].Alias == "reref" {
			m.Packages[i].Ref = "v1"
		}
	}
	// fresh is in the manifest, not yet locked or installed.
	m.Packages = append(m.Packages, project.PackageSpec{Alias: "fresh", Source: f.upstream, Path: "team"})
	if err := w.writeManifest(&m); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.pkgDir("dirty"), "v2", "intro.md"), "# Intro\n\nmine\n")
	writeFile(t, filepath.Join(w.pkgDir("dirtysame"), "a.md"), "# A, mine\n")
	lockBefore := readFile(t, filepath.Join(f.project, project.DirName, project.LockName))

	changes, err := outdatedOf(w)
	if err != nil {
		t.Fatal(err)
	}
	dry, err := w.Update(bg, nil, UpdateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(f.project, project.DirName, project.LockName)) != lockBefore || exists(w.pkgDir("fresh")) {
		t.Fatal("the dry run changed the project")
	}
	real, err := w.Update(bg, nil, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := planned(dry), planned(real); got != want {
		t.Fatalf("update --dry-run said:\n%s\nupdate did:\n%s", got, want)
	}
	want := "cleansame:unchanged dirty:skipped dirtysame:unchanged fresh:installed moved:updated reref:updated"
	if actions(real) != want {
		t.Fatalf("update: %s, want %s", actions(real), want)
	}

	// outdated: the packages whose lock entry the plan moves, with the
	// same commits (dirty too: it is outdated, update skipped it).
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%s %s→%s", c.Alias, naming.ShortRev(c.OldCommit, 12), naming.ShortRev(c.NewCommit, 12)))
	}
	var fromPlan []string
	for _, p := range dry.Packages {
		if p.Action == Installed || p.Action == Updated || p.Reason == "dirty" {
			fromPlan = append(fromPlan, fmt.Sprintf("%s %s→%s", p.Alias, naming.ShortRev(p.OldCommit, 12), naming.ShortRev(p.NewCommit, 12)))
		}
	}
	if strings.Join(got, ", ") != strings.Join(fromPlan, ", ") {
		t.Fatalf("outdated: %s\nupdate --dry-run moves: %s", strings.Join(got, ", "), strings.Join(fromPlan, ", "))
	}
}

// TestPlanMatchesRun: for install and remove too, the plan's report is what
// executing a fresh plan of the same project reports.
func TestPlanMatchesRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{
		{Alias: "keep", Source: f.upstream, Path: "team"},
		{Alias: "gone", Source: f.upstream, Path: "team"},
		{Alias: "edited", Source: f.upstream, Path: "guides/api"},
		{Alias: "mine", Source: f.upstream, Path: "guides/api"},
	}, AddOptions{}))
	writeFile(t, filepath.Join(w.pkgDir("mine"), "v2", "intro.md"), "# Intro\n\nmine\n")
	writeFile(t, filepath.Join(w.pkgDir("edited"), "v2", "intro.md"), "# Intro\n\nmine too\n")
	// gone and edited leave the manifest: install removes gone and keeps
	// edited, which has local edits; mine, edited at its locked commit, is
	// skipped (it does not match the lock).
	m := w.Manifest()
	m.Packages = m.Packages[:0]
	for _, s := range w.Manifest().Packages {
		if s.Alias == "keep" || s.Alias == "mine" {
			m.Packages = append(m.Packages, s)
		}
	}
	if err := w.writeManifest(&m); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name string
		plan func() (*plan, error)
		want string
	}{
		{"install", func() (*plan, error) { return w.planInstall(bg, InstallOptions{}) }, "edited:skipped gone:removed keep:unchanged mine:skipped"},
		{"remove", func() (*plan, error) { return w.planRemove([]string{"mine", "keep"}, RemoveOptions{}) }, "keep:removed mine:skipped"},
	} {
		p, err := c.plan()
		if err != nil {
			t.Fatal(err)
		}
		dry := p.report()
		if p, err = c.plan(); err != nil {
			t.Fatal(err)
		}
		real, err := w.execute(bg, p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := planned(dry), planned(real); got != want {
			t.Fatalf("%s: the plan said:\n%s\nthe run did:\n%s", c.name, got, want)
		}
		if actions(real) != c.want {
			t.Fatalf("%s: %s, want %s", c.name, actions(real), c.want)
		}
	}
	if exists(w.pkgDir("gone")) || exists(w.pkgDir("keep")) || !exists(w.pkgDir("mine")) || !exists(w.pkgDir("edited")) {
		t.Fatal("the runs did not do what they reported")
	}
}

// outdatedOf is w.Outdated of every package as changes and one error:
// the command's, or the failed packages' errors.
func outdatedOf(w *Workspace) ([]Change, error) {
	rep, err := w.Outdated(bg, nil)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, p := range rep.Failed {
		errs = append(errs, fmt.Errorf("%s: %w", p.Alias, p.Err))
	}
	return rep.Changes, errors.Join(errs...)
}
