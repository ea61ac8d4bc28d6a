package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/treehash"
)

// TestFollowedLock (trust23): a package whose lock moved and whose files
// followed it (a pull brought both) is the lock's commit's text when its
// files hash to the lock's hash, and Holds then tells per file whether a
// file is still that text; a package at the installed commit, or whose
// files are not all the lock's, gives nil.
func TestFollowedLock(t *testing.T) {
	w, st := installedTeam(t)
	in, err := ReadInstalled(w.proj, "team")
	if err != nil {
		t.Fatal(err)
	}
	dir := w.pkgDir("team")
	var rel string
	for _, f := range st.Files {
		if f.Mode.IsRegular() {
			rel = f.Path
			break
		}
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	// The pull: one file rewritten, the lock's hash that of the new files.
	if err := os.WriteFile(p, []byte("# Pulled\n\nthe teammate's text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newHash, err := treehash.HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	const newRev = "1111111111111111111111111111111111111111"
	if in.Holds(rel, nil) {
		t.Fatalf("%s rewritten: held as the installed commit's", rel)
	}
	if f := in.FollowedLock(st.Rev, newHash); f != nil {
		t.Error("the installed commit itself: not a lock that moved")
	}
	if f := in.FollowedLock(newRev, st.Hash); f != nil {
		t.Error("files that are not the lock's hash: followed")
	}
	f := in.FollowedLock(newRev, newHash)
	if f == nil {
		t.Fatal("files that hash to the new lock's hash: not followed")
	}
	if f.Commit() != newRev {
		t.Errorf("Commit() = %q, want the lock's %q", f.Commit(), newRev)
	}
	for _, sf := range st.Files {
		if !f.Holds(sf.Path, nil) {
			t.Errorf("%s: not held as the lock's text", sf.Path)
		}
	}
	// An edit after the pull: a local edit of the lock's commit.
	if err := os.WriteFile(p, []byte("# Pulled\n\nthe user's text!!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f.Holds(rel, nil) {
		t.Errorf("%s edited after the pull: still held", rel)
	}
}
