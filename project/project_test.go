package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/lockfile"
)

func TestInstalled(t *testing.T) {
	p, err := At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"b", "a"} {
		if err := os.MkdirAll(p.PackageDir(a), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := lockfile.Entry{Source: "s", Path: "docs", Ref: "main", Rev: strings.Repeat("a", 40)}
	l := &lockfile.Lock{Version: 1, Packages: map[string]lockfile.Entry{"a": e, "b": e, "gone": e}}
	// Dir sources: a folder, a file, one that is missing, one whose alias
	// is also locked (the lock wins), and a git spec (not live).
	if err := os.MkdirAll(filepath.Join(p.Root(), "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Root(), "AGENTS.md"), []byte("# Agents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Packages: []PackageSpec{
		{Alias: "project-docs", Kind: KindDir, Source: "./docs"},
		{Alias: "agents", Kind: KindDir, Source: "AGENTS.md"},
		{Alias: "gone-dir", Kind: KindDir, Source: "nowhere"},
		{Alias: "a", Kind: KindDir, Source: "docs"},
		{Alias: "b", Source: "s"},
	}}
	got := p.Installed(m, l)
	want := []Package{
		{Alias: "a", Kind: KindGit, Source: "s", Path: "docs", Ref: "main", Rev: e.Rev, Dir: p.PackageDir("a")},
		{Alias: "agents", Kind: KindDir, Source: "AGENTS.md", Dir: p.Root(), Only: "AGENTS.md"},
		{Alias: "b", Kind: KindGit, Source: "s", Path: "docs", Ref: "main", Rev: e.Rev, Dir: p.PackageDir("b")},
		{Alias: "project-docs", Kind: KindDir, Source: "./docs", Dir: filepath.Join(p.Root(), "docs")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Installed = %+v, want %+v", got, want)
	}
	if p.IsInstalled("gone") || !p.IsInstalled("a") {
		t.Error("IsInstalled disagrees with Installed")
	}
}

func TestReadMissing(t *testing.T) {
	p, err := At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); !errors.Is(err, ErrNoProject) || !strings.Contains(err.Error(), "ctx init") {
		t.Errorf("Check = %v, want ErrNoProject saying to run ctx init", err)
	}
	if _, err := p.ReadManifest(); !errors.Is(err, ErrNoProject) {
		t.Errorf("ReadManifest = %v, want ErrNoProject", err)
	}
	if _, err := p.ReadLock(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadLock = %v, want fs.ErrNotExist", err)
	}
	if err := os.MkdirAll(p.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir(), LockName), []byte("{\n  \"version\": 1,\n  \"packages\": 3\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadLock(); err == nil || !strings.Contains(err.Error(), ".context/context.lock:3:") {
		t.Errorf("ReadLock of a broken lock = %v, want .context/context.lock:3:…", err)
	}
}
