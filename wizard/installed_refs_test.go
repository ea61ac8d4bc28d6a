package wizard

import (
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
)

// (review17e) a package installed from a registry context at ref "main";
// the registry now offers the same folder at two refs ("handbook" at v2,
// "handbook-v1" at v1). The installed package matches neither by ref, and
// the one-ref fallback is off, so `setup --select handbook` installs a
// second package of the same folder, "handbook-2", next to "handbook":
// the same documents twice in the index. The context whose name is the
// installed alias should be taken as installed (its ref changed).
func TestRefChangedTwoRefsNoDuplicate(t *testing.T) {
	t.Parallel()
	const repo = "https://git.example/handbook.git"
	man := project.Manifest{Packages: []project.PackageSpec{{Alias: "handbook", Source: repo, Path: "docs", Ref: "main"}}}
	reg := &registry.Result{Name: "hub", Contexts: []registry.Entry{
		{Context: registry.Context{Name: "handbook", Description: "current", Repo: repo, Path: "docs", Ref: "v2"}},
		{Context: registry.Context{Name: "handbook-v1", Description: "release 1", Repo: repo, Path: "docs", Ref: "v1"}},
	}}
	ws := &fakeWorkspace{man: man}
	if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: reg, Select: []string{"handbook"}, Yes: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range ws.added {
		if registry.ContextKey(s.Source, s.Path) == registry.ContextKey(repo, "docs") {
			t.Errorf("added %s (ref %s): a second package of the folder installed as %q", s.Alias, s.Ref, "handbook")
		}
	}
}

// (review17e) the ref matching of installedAliases had no test (a mutation
// that drops the byRef map passed every test of wizard and cmd/ctx's
// setup/refs/reg scripts). Two packages of one folder at two refs, both
// offered: each is installed under its own alias, and nothing is added.
func TestTwoRefsEachInstalled(t *testing.T) {
	t.Parallel()
	const repo = "https://git.example/handbook.git"
	man := project.Manifest{Packages: []project.PackageSpec{
		{Alias: "hb1", Source: repo, Path: "docs", Ref: "v1"},
		{Alias: "hb", Source: repo, Path: "docs", Ref: "main"},
	}}
	reg := &registry.Result{Name: "hub", Contexts: []registry.Entry{
		{Context: registry.Context{Name: "handbook", Description: "current", Repo: repo, Path: "docs", Ref: "main"}},
		{Context: registry.Context{Name: "handbook-v1", Description: "release 1", Repo: repo, Path: "docs", Ref: "v1"}},
	}}
	got := installedAliases(man, reg.Contexts)
	if got[0] != "hb" || got[1] != "hb1" {
		t.Errorf("installedAliases = %v, want 0:hb 1:hb1", got)
	}
	ws := &fakeWorkspace{man: man}
	if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: reg, Select: []string{"handbook", "handbook-v1"}, Yes: true}); err != nil {
		t.Fatal(err)
	}
	if len(ws.added) > 0 {
		t.Errorf("added %+v: both were installed", ws.added)
	}
}

// (review17e) The same, when no offered ref is named as the package: which
// context it became is not known, so none is installed beside it (the same
// documents twice), and the log says why and what to do.
func TestRefChangedTwoRefsNoNameMatchNotInstalled(t *testing.T) {
	t.Parallel()
	const repo = "https://git.example/handbook.git"
	man := project.Manifest{Packages: []project.PackageSpec{{Alias: "handbook", Source: repo, Path: "docs", Ref: "main"}}}
	reg := &registry.Result{Name: "hub", Contexts: []registry.Entry{
		{Context: registry.Context{Name: "hb-current", Description: "current", Repo: repo, Path: "docs", Ref: "v2"}},
		{Context: registry.Context{Name: "hb-old", Description: "release 1", Repo: repo, Path: "docs", Ref: "v1"}},
		{Context: registry.Context{Name: "other", Description: "another folder", Repo: repo, Path: "api", Ref: "v2"}},
	}}
	ws := &fakeWorkspace{man: man}
	var log strings.Builder
	if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: reg, Select: []string{"hb-current", "other"}, Yes: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if len(ws.added) != 1 || ws.added[0].Path != "api" {
		t.Errorf("added %+v, want only other", ws.added)
	}
	if !strings.Contains(log.String(), `"hb-current" not installed: the project has its folder as handbook at ref "main"`) {
		t.Errorf("log %q does not say why hb-current was not installed", log.String())
	}
}
