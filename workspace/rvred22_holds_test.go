package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInstalledFilesHolds (rv-red22): ctx mcp's "edited" asks Holds, the
// guard's rule for one file (holdsInstalled, which asInstalled asks too):
// a same-size edit with the installed file's own mtime set back is not
// held, the same text again is (hashed: its ctime moved), a mode change
// alone does not change the text, and a file ctx did not install, one
// deleted and a link in a file's place are not held.
func TestInstalledFilesHolds(t *testing.T) {
	w, st := installedTeam(t)
	in, err := ReadInstalled(w.proj, "team")
	if err != nil {
		t.Fatal(err)
	}
	if in.Commit() != st.Rev {
		t.Fatalf("Commit() = %q, want the state's %q", in.Commit(), st.Rev)
	}
	var rel string
	for _, f := range st.Files {
		if f.Mode.IsRegular() && f.Size > 0 {
			rel = f.Path
			break
		}
	}
	if rel == "" {
		t.Fatal("no regular file installed")
	}
	p := filepath.Join(w.pkgDir("team"), filepath.FromSlash(rel))
	if !in.Holds(rel, nil) {
		t.Fatalf("%s as installed: not held", rel)
	}
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	mtime := fi.ModTime()
	setBack := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, time.Time{}, mtime); err != nil {
			t.Fatal(err)
		}
	}
	edited := append([]byte(nil), orig...)
	edited[0] ^= 0x20
	setBack(edited)
	if in.Holds(rel, nil) {
		t.Errorf("%s: a same-size edit with its mtime set back is held", rel)
	}
	setBack(orig)
	if !in.Holds(rel, nil) {
		t.Errorf("%s: the installed text again is not held", rel)
	}
	// A caller that read the file hands its text: that is what is judged
	// when no stamp proves the file (its ctime moved).
	if !in.Holds(rel, orig) {
		t.Errorf("%s: the installed text, handed, is not held", rel)
	}
	if in.Holds(rel, edited) {
		t.Errorf("%s: an edited text, handed, is held", rel)
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if !in.Holds(rel, nil) {
		t.Errorf("%s: a mode change alone makes it not held", rel)
	}
	added := filepath.Join(w.pkgDir("team"), "added-here.md")
	if err := os.WriteFile(added, []byte("# Added\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if in.Holds("added-here.md", nil) {
		t.Error("a file ctx did not install is held")
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if in.Holds(rel, nil) {
		t.Errorf("%s: deleted, held", rel)
	}
	if err := os.Symlink(added, p); err == nil && in.Holds(rel, nil) {
		t.Errorf("%s: a link in its place is held", rel)
	}
}
