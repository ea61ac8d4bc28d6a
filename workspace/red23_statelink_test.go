package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestRed23InstallStateLink (red23): a symbolic link at a package's state
// file (.state/guides.json; a project unpacked from a tar archive, or
// copied with its links) makes the package not installed here (no
// regular state: project.InstalledHere), and `ctx status` says to run
// `ctx install`. install found the files to be the lock's, said
// "unchanged" and exited 0, and its write of the state, refused by
// confine (no link is followed in .context/), was dropped in silence: the
// package stayed not installed, install after install. It now says why,
// naming the link and what to do.
func TestRed23InstallStateLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	w.Close()
	state := filepath.Join(f.project, project.DirName, project.StateDir, "guides.json")
	elsewhere := filepath.Join(f.tmp, "elsewhere.json")
	if err := os.Rename(state, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, state); err != nil {
		t.Skip("no symbolic link:", err)
	}
	f.log.Reset()
	w = f.open(f.project)
	f.must(w.Install(bg, InstallOptions{}))
	if !strings.Contains(f.log.String(), "guides.json is a symbolic link") || !strings.Contains(f.log.String(), "remove it") {
		t.Errorf("install with a link at the state said nothing of it:\n%s", f.log)
	}
}
