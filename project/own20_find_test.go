package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Windows' owner rule (git for Windows' is_path_owned_by_current_sid), its
// decision table: the system's reading of SIDs (owner_windows.go) is not
// run here (no Windows machine), the decision is.
func TestTrustWindowsTable(t *testing.T) {
	const me, other = "S-1-5-21-1-2-3-1001", "S-1-5-21-1-2-3-1002"
	for _, c := range []struct {
		name string
		f    ownerFacts
		ok   bool
		say  string
	}{
		{"mine", ownerFacts{sid: me, user: me}, true, ""},
		{"another user's", ownerFacts{sid: other, user: me}, false, "owned by " + other + ", not by you (" + me + ")"},
		{"Administrators', elevated member", ownerFacts{sid: sidAdministrators, user: me, adminMember: true}, true, ""},
		{"Administrators', not elevated", ownerFacts{sid: sidAdministrators, user: me}, false, "owned by " + sidAdministrators},
		{"SYSTEM's", ownerFacts{sid: "S-1-5-18", user: me}, false, "owned by S-1-5-18"},
		{"FAT (Everyone's)", ownerFacts{sid: sidWorld, user: me}, false, "records no owner"},
		{"the home folder, Administrators'", ownerFacts{sid: sidAdministrators, user: me, home: true}, true, ""},
		{"owner unreadable", ownerFacts{fail: "Access is denied."}, false, "could not be read: Access is denied."},
		// Windows modes mean nothing: a SID owner is never asked for them.
		{"mine, mode 0777", ownerFacts{sid: me, user: me, modes: false, mode: 0o777}, true, ""},
	} {
		why, kind := FindOptions{}.trust(c.f, ".context/", false)
		if c.ok != (kind == nil) || !strings.Contains(why, c.say) {
			t.Errorf("%s: trust = %q, %v; want ok %v saying %q", c.name, why, kind, c.ok, c.say)
		}
		if !c.ok && kind != ErrNotOwned {
			t.Errorf("%s: kind %v, want ErrNotOwned", c.name, kind)
		}
	}
}

// Unix's rule, its table: the owner (the user, root, SUDO_UID's user when
// root), then who else can write .context/ and the manifest (sshd's
// StrictModes): every user, or a group that is not the owner's own.
func TestTrustUnixTable(t *testing.T) {
	private := func(uid, gid int) bool { return uid == gid }
	o := FindOptions{UID: func() int { return 1000 }, PrivateGroup: private}
	for _, c := range []struct {
		name   string
		f      ownerFacts
		folder bool
		kind   error
	}{
		{"mine 0755", ownerFacts{known: true, uid: 1000, gid: 1000, modes: true, mode: fs.ModeDir | 0o755}, false, nil},
		{"root's 0755", ownerFacts{known: true, uid: 0, gid: 0, modes: true, mode: fs.ModeDir | 0o755}, false, nil},
		{"another's", ownerFacts{known: true, uid: 1001, gid: 1001, modes: true, mode: fs.ModeDir | 0o755}, false, ErrNotOwned},
		{"root's, world-writable", ownerFacts{known: true, uid: 0, gid: 0, modes: true, mode: fs.ModeDir | 0o777}, false, ErrWritable},
		{"root's, world-writable and sticky", ownerFacts{known: true, uid: 0, gid: 0, modes: true, mode: fs.ModeDir | fs.ModeSticky | 0o777}, false, ErrWritable},
		{"mine, world-writable", ownerFacts{known: true, uid: 1000, gid: 1000, modes: true, mode: 0o666}, false, ErrWritable},
		{"root's, writable by group staff (said, not refused)", ownerFacts{known: true, uid: 0, gid: 50, modes: true, mode: fs.ModeDir | 0o775}, false, errGroupWritable},
		{"mine, writable by my private group", ownerFacts{known: true, uid: 1000, gid: 1000, modes: true, mode: fs.ModeDir | 0o775}, false, nil},
		{"mine, writable by a shared group (said, not refused)", ownerFacts{known: true, uid: 1000, gid: 100, modes: true, mode: fs.ModeDir | 0o775}, false, errGroupWritable},
		{"a symbolic link (its mode means nothing)", ownerFacts{known: true, uid: 1000, gid: 100, modes: true, mode: fs.ModeSymlink | 0o777}, false, nil},
		{"the folder, world-writable (its mode is not asked)", ownerFacts{known: true, uid: 0, gid: 0, modes: true, mode: fs.ModeDir | 0o777}, true, nil},
		{"the folder, another's", ownerFacts{known: true, uid: 1001, gid: 1001, modes: true, mode: fs.ModeDir | 0o755}, true, ErrNotOwned},
		{"no owners recorded", ownerFacts{uid: 1001}, false, nil},
	} {
		why, kind := o.trust(c.f, "x", c.folder)
		if kind != c.kind || (kind == nil) != (why == "") {
			t.Errorf("%s: trust = %q, %v; want %v", c.name, why, kind, c.kind)
		}
	}
}

// The project folder itself is checked, not only .context/ and the
// manifest (git checks the work tree's top): a project in a folder another
// user owns is refused.
func TestFindOwnerFolder(t *testing.T) {
	base := findTree(t, "tmp/.context/context.config.json", "tmp/me/work/")
	planted := filepath.Join(base, "tmp")
	folderOnly := func(fi fs.FileInfo) (int, bool) {
		if fi.Name() == "tmp" {
			return 1001, true
		}
		return 1000, true
	}
	_, err := Find(filepath.Join(planted, "me", "work"), FindOptions{Owner: folderOnly, UID: func() int { return 1000 }})
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "the folder is user 1001's") {
		t.Errorf("Find below a project in another user's folder: %v; want ErrNotOwned naming the folder", err)
	}
}

// A .context/ (or manifest) of a project above that others can write is
// refused with ErrWritable, naming chmod and -C; the user's own, not
// writable by others, is taken. Real modes (chmod needs no root).
func TestFindWritableContext(t *testing.T) {
	base := findTree(t, "p/.context/context.config.json", "p/sub/")
	root := filepath.Join(base, "p")
	start := filepath.Join(root, "sub")
	ctxDir := filepath.Join(root, DirName)
	manifest := filepath.Join(ctxDir, ManifestName)
	mine := FindOptions{PrivateGroup: func(int, int) bool { return false }}
	for _, c := range []struct {
		path string
		mode fs.FileMode
		bad  bool
	}{
		{ctxDir, 0o755, false},
		{ctxDir, 0o777, true},
		{ctxDir, 0o1777, true},
		{manifest, 0o646, true},
		{manifest, 0o644, false},
	} {
		if err := os.Chmod(c.path, c.mode); err != nil {
			t.Fatal(err)
		}
		got, err := Find(start, mine)
		if !c.bad {
			if err != nil || got != root {
				t.Errorf("%s %o: Find = %s, %v; want %s", c.path, c.mode, got, err, root)
			}
			continue
		}
		if !errors.Is(err, ErrWritable) || !errors.Is(err, ErrNoProject) || !strings.Contains(err.Error(), "chmod go-w "+c.path) || !strings.Contains(err.Error(), "-C "+root) {
			t.Errorf("%s %o: Find = %s, %v; want ErrWritable naming chmod and -C", c.path, c.mode, got, err)
		}
		if err := os.Chmod(c.path, map[bool]fs.FileMode{true: 0o755, false: 0o644}[c.path == ctxDir]); err != nil {
			t.Fatal(err)
		}
	}
	// A group-writable .context/ of the owner's private group is taken.
	if err := os.Chmod(ctxDir, 0o775); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(start, FindOptions{PrivateGroup: func(int, int) bool { return true }}); err != nil || got != root {
		t.Errorf("private group: Find = %s, %v; want %s", got, err, root)
	}
}

// The walk goes up the physical path: in a folder reached through a link
// to another tree, the project is the other tree's (or none), never the
// one above the link, and a planted project above the link's target is
// refused. Without links in between, the project is named as the start
// names it, also when a folder above both is a link.
func TestFindThroughSymlink(t *testing.T) {
	base := findTree(t,
		"mine/.context/context.config.json",
		"other/x/sub/",
		"theirs/.context/context.config.json", "theirs/x/",
		"linked/.context/context.config.json", "linked/sub/",
	)
	link := func(target, name string) string {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.Symlink(filepath.Join(base, filepath.FromSlash(target)), p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toOther := link("other/x", "mine/link")
	toTheirs := link("theirs/x", "mine/theirs")
	alias := link(".", "alias")
	// In mine/link/sub (physically other/x/sub): no project, not mine.
	start := filepath.Join(toOther, "sub")
	if got, err := Find(start, FindOptions{}); err != nil || got != start {
		t.Errorf("Find(%s) = %s, %v; want the start (the link target's tree has no project)", start, got, err)
	}
	// In mine/theirs (physically theirs/x): their project, which is
	// checked (here another user's).
	theirs := filepath.Join(base, "theirs")
	planted := func(fi fs.FileInfo) (int, bool) {
		if fi.Name() == "theirs" || fi.Name() == DirName || fi.Name() == ManifestName {
			return 1001, true
		}
		return 1000, true
	}
	if _, err := Find(toTheirs, FindOptions{Owner: planted, UID: func() int { return 1000 }}); !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "-C "+theirs) {
		t.Errorf("Find(%s) = %v; want their project, refused", toTheirs, err)
	}
	if got, err := Find(toTheirs, FindOptions{}); err != nil || got != theirs {
		t.Errorf("Find(%s) = %s, %v; want %s, the physical parent", toTheirs, got, err, theirs)
	}
	// alias/linked/sub: no link between it and the project: named as typed.
	start = filepath.Join(alias, "linked", "sub")
	if got, err := Find(start, FindOptions{}); err != nil || got != filepath.Join(alias, "linked") {
		t.Errorf("Find(%s) = %s, %v; want %s", start, got, err, filepath.Join(alias, "linked"))
	}
	// A ceiling named through a link stops the walk as its target does.
	if got, err := Find(start, FindOptions{Ceilings: []string{filepath.Join(alias, "linked")}}); err != nil || got != start {
		t.Errorf("Find(%s) below a linked ceiling = %s, %v; want the start", start, got, err)
	}
}
