package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// A mode change is a local edit to verify as it is to status.
func TestVerifySeesModeChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	if err := os.Chmod(filepath.Join(w.pkgDir("guides"), "other.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := w.Status()
	if err != nil || len(st) != 1 || st[0].Files[0] != (FileChange{Path: "other.md", Change: changeMode}) {
		t.Fatalf("status: %+v %v", st, err)
	}
	vr, err := w.Verify()
	if err != nil || len(vr) != 1 || vr[0].OK {
		t.Fatalf("verify after chmod +x: %+v %v", vr, err)
	}
	if len(vr[0].Modes) != 1 || vr[0].Modes[0] != "other.md" {
		t.Fatalf("verify names %q", vr[0].Modes)
	}
}

// A file name that is not valid UTF-8 round-trips through the state: a
// clean install is clean, and remove goes through.
func TestLatin1FileName(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := "caf\xe9.md" // Latin-1 é
	repo := filepath.Join(f.tmp, "latin1")
	gittest.NewRepo(t, repo, map[string]string{"docs/a.md": "# A\n"})
	// git's plumbing takes any bytes as a name.
	blob := gittest.MustGit(t, repo, "hash-object", "-w", "docs/a.md")
	idx := "100644 " + blob + "\tdocs/" + name + "\n"
	if out, err := gittest.GitInput(repo, []byte(idx), "update-index", "--index-info"); err != nil {
		t.Fatal(out, err)
	}
	gittest.MustGit(t, repo, "commit", "-q", "-m", "latin-1 name")

	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: repo, Path: "docs", Alias: "docs"}}, AddOptions{}))
	if !exists(filepath.Join(w.pkgDir("docs"), name)) {
		t.Fatal("the Latin-1 file was not installed")
	}
	if st, err := w.Status(); err != nil || len(st) != 0 {
		t.Fatalf("status right after install: %+v %v", st, err)
	}
	r := f.must(w.Remove(bg, []string{"docs"}, RemoveOptions{}))
	if actions(r) != "docs:removed" {
		t.Fatalf("remove: %s %+v", actions(r), r.Packages[0])
	}
}

// State files written before ctime, inode and pathBytes were recorded still
// read, and every name round-trips.
func TestStateEncoding(t *testing.T) {
	t.Parallel()
	var old pkgState
	if err := json.Unmarshal([]byte(`{"commit":"c","tree":"t","hash":"h1:x","files":[{"path":"a.md","blob":"b","size":3,"mode":420,"mtime":7}]}`), &old); err != nil {
		t.Fatal(err)
	}
	if f := old.Files[0]; f.Path != "a.md" || f.Size != 3 || f.MTime != 7 || f.CTime != 0 || f.Ino != 0 {
		t.Fatalf("old state read as %+v", f)
	}
	for _, name := range []string{"a.md", "caf\xe9.md", "\xff\xfe/x", "ü.md", ""} {
		in := fileState{Path: name, Blob: "b", Size: 1, Mode: 0o644, MTime: 2, CTime: 3, Ino: 4}
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out fileState
		if err := json.Unmarshal(data, &out); err != nil || out != in {
			t.Fatalf("%q: %s read back as %+v (%v)", name, data, out, err)
		}
		if utf8.ValidString(name) && !strings.Contains(string(data), `"path":`) {
			t.Fatalf("a valid name is not written as before: %s", data)
		}
	}
}
