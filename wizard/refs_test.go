package wizard

import (
	"reflect"
	"testing"

	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
)

// TestRefPackages: a registry context the manifest has (by source and
// path) under another alias means that package, by its name and by its
// alias form; one in the manifest but not installed is pending; others are
// offered; an installed alias wins over a registry name.
func TestRefPackages(t *testing.T) {
	t.Parallel()
	man := project.Manifest{Packages: []project.PackageSpec{
		{Alias: "handbook", Source: "https://h/hb.git", Path: "docs/api"},
		{Alias: "web", Source: "https://h/web.git"},
		{Alias: "ops", Source: "https://h/mine.git"},
	}}
	installed := []project.Package{{Alias: "handbook", Dir: "/p/handbook"}, {Alias: "ops", Dir: "/p/ops"}}
	entry := func(name, repo, p string) registry.Entry {
		return registry.Entry{Context: registry.Context{Name: name, Repo: repo, Path: p}}
	}
	reg := &registry.Result{Contexts: []registry.Entry{
		entry("API Guidelines", "https://h/hb.git", "docs/api"),
		entry("Web", "https://h/web.git", ""),
		entry("ops", "https://h/other-ops.git", ""),
		entry("Runbooks", "https://h/rb.git", ""),
	}}
	pk := RefPackages(man, installed, reg)
	var inst []string
	for n, p := range pk.Installed {
		inst = append(inst, n+"="+p.Alias)
	}
	if pk.Installed["API Guidelines"].Alias != "handbook" || pk.Installed["api-guidelines"].Alias != "handbook" || pk.Installed["ops"].Dir != "/p/ops" || len(pk.Installed) != 4 {
		t.Errorf("installed: %q", inst)
	}
	if _, ok := pk.Pending["Web"]; !ok || len(pk.Pending) != 2 { // web (alias) and Web (name)
		t.Errorf("pending: %v", pk.Pending)
	}
	if want := map[string]string{"Runbooks": "Runbooks", "runbooks": "Runbooks"}; !reflect.DeepEqual(pk.Offered, want) {
		t.Errorf("offered: %v, want %v", pk.Offered, want)
	}
	specs := RefSpecs(man, reg, []string{"Runbooks", "ops", "nope"})
	if len(specs) != 2 || specs[0].Alias != "runbooks" || specs[0].Source != "https://h/rb.git" || specs[1].Alias != "ops-2" {
		t.Errorf("specs: %+v", specs)
	}
}
