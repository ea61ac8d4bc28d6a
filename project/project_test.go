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
	e := lockfile.Entry{Source: "s", Path: "docs", Ref: "main", Commit: strings.Repeat("a", 40)}
	l := &lockfile.Lock{Version: 1, Packages: map[string]lockfile.Entry{"a": e, "b": e, "gone": e}}
	got := p.Installed(l)
	want := []Package{
		{Alias: "a", Source: "s", Path: "docs", Ref: "main", Commit: e.Commit},
		{Alias: "b", Source: "s", Path: "docs", Ref: "main", Commit: e.Commit},
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
