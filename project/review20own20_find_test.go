package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// review20-own20: a project above the start whose .context/ or manifest a
// group other than its owner's own can write (a team's shared folder; a
// clone made with umask 002 on macOS, group staff) is the user's and is
// taken when ctx starts in it; own20 refused it from every subfolder, so
// the same project worked at its root and failed one folder down. It is
// taken, and said once (FindOptions.Warn), naming it; writable by every
// user it is still refused.
func TestFindGroupWritableWarns(t *testing.T) {
	base := findTree(t, "p/.context/context.config.json", "p/sub/")
	root := filepath.Join(base, "p")
	start := filepath.Join(root, "sub")
	ctxDir := filepath.Join(root, DirName)
	manifest := filepath.Join(ctxDir, ManifestName)
	if err := os.Chmod(ctxDir, 0o775); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(manifest, 0o664); err != nil {
		t.Fatal(err)
	}
	var said []string
	o := FindOptions{PrivateGroup: func(int, int) bool { return false }, Warn: func(m string) { said = append(said, m) }}
	got, err := Find(start, o)
	if err != nil || got != root {
		t.Fatalf("Find below a group-writable project = %s, %v; want %s", got, err, root)
	}
	if len(said) != 1 || !strings.Contains(said[0], "at "+root+", is taken, though others can change it") ||
		!strings.Contains(said[0], ".context/ is writable by group") || !strings.Contains(said[0], ManifestName+" is writable by group") {
		t.Errorf("warnings %q; want one naming the project, .context/ and the manifest", said)
	}
	// The owner's private group: nothing said.
	said = nil
	o.PrivateGroup = func(int, int) bool { return true }
	if got, err := Find(start, o); err != nil || got != root || len(said) != 0 {
		t.Errorf("private group: Find = %s, %v, said %q; want %s, nothing said", got, err, said, root)
	}
	// Writable by every user besides: refused, and the group's warning
	// is not said for a project not taken.
	said = nil
	o.PrivateGroup = func(int, int) bool { return false }
	if err := os.Chmod(manifest, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(start, o); !errors.Is(err, ErrWritable) || len(said) != 0 {
		t.Errorf("world-writable manifest: %v, said %q; want ErrWritable and no warning", err, said)
	}
}
