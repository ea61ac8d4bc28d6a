package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/project"
)

// TestGuardRacyStamp: a file edited in the same tick of the file system's
// clock as ctx wrote it keeps its whole stamp (size, mtime, ctime, inode);
// the guard reads every file whose recorded ctime is not before the state
// file's mtime, so the edit is still found. The edit is simulated: the
// state is given the edited file's stamp, and dated at its ctime.
func TestGuardRacyStamp(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no ctime: every file is read")
	}
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	p := filepath.Join(w.pkgDir("guides"), "other.md")
	writeFile(t, p, "# Mine\n\n") // same size as "# Other\n"
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	now := fileid.Of(fi)
	st, err := w.readState("guides")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range st.Files {
		if e.Path == "other.md" {
			st.Files[i].Size, st.Files[i].MTime, st.Files[i].CTime, st.Files[i].Ino = now.Size, now.MTime, now.CTime, now.Ino
		}
	}
	if err := w.writeState(w.statePath("guides"), st); err != nil {
		t.Fatal(err)
	}
	dateState := func(at time.Time) {
		t.Helper()
		if err := os.Chtimes(w.statePath("guides"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	modified := []PackageStatus{{Alias: "guides", Files: []FileChange{{Path: "other.md", Change: changeModified}}}}

	// The state written a tick later than the stamp: the stamp is
	// trusted (what spares an update reading every file).
	dateState(time.Unix(0, now.CTime).Add(time.Second))
	if got, err := w.Status(); err != nil || len(got) != 0 {
		t.Fatalf("status with the stamp before the state: %+v %v", got, err)
	}
	// In the same tick: the file is read, the edit found.
	dateState(time.Unix(0, now.CTime))
	if got, err := w.Status(); err != nil || !reflect.DeepEqual(got, modified) {
		t.Fatalf("status of a racily clean edit: %+v %v", got, err)
	}
	f.commit("upstream moves", map[string]string{"guides/api/v2/intro.md": "# Intro v2\n"})
	dateState(time.Unix(0, now.CTime))
	r, err := w.Update(bg, nil, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := r.Packages[0]; g.Action != Skipped || g.Reason != SkipDirty || !reflect.DeepEqual(g.DirtyFiles, []string{"M other.md"}) {
		t.Fatalf("update over a racily clean edit: %+v", g)
	}
	if got := readFile(t, p); got != "# Mine\n\n" {
		t.Fatalf("the edit was lost: %q", got)
	}
}
