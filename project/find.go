package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// FindOptions are Find's seams. The zero value reads the file system's
// owners and the running user's id.
type FindOptions struct {
	// Owner returns the user id that owns fi (an os.Lstat result) and
	// whether the system has Unix owners at all (false: every owner is
	// accepted). nil: the system's (fileOwner, which on Windows reads the
	// owner's SID instead). Tests simulate another user's files.
	Owner func(fi fs.FileInfo) (uid int, known bool)
	// UID is the running user's id; nil: os.Getuid.
	UID func() int
	// SudoUID is the id of the user who ran ctx through sudo (SUDO_UID,
	// read by cmd/ctx; 0: none). When ctx runs as root, a project owned
	// by that user is accepted too, as git's safe.directory does: `sudo
	// ctx …` in a subfolder of the user's own project works on it. Not
	// running as root it is ignored (anyone can set SUDO_UID).
	SudoUID int
	// PrivateGroup reports whether gid is the private group of the user
	// uid (a group of that user alone, USERGROUPS_ENAB's convention): a
	// .context/ writable by that group is writable by its owner only.
	// nil: privateGroup (the user and group databases, os/user).
	PrivateGroup func(uid, gid int) bool
	// Home is the user's home folder (cmd/ctx's environment). On Windows
	// it counts as the user's whoever owns it, as git for Windows takes
	// it (there the profile folder may be the Administrators').
	Home string
	// Warn, when not nil, is told of a project found above the start that
	// is taken though a group other than its owner's own can write its
	// .context/ or manifest (a team's shared folder, a clone made with a
	// umask of 002 where the user's group is everyone's, macOS's staff):
	// git takes such a project, and the same project is taken without a
	// word when ctx starts in it, so it is said, not refused.
	Warn func(msg string)
	// Ceilings are absolute, clean folders the walk does not go up into
	// (CTX_CEILING_DIRECTORIES, git's GIT_CEILING_DIRECTORIES): a folder
	// below one is looked at, the ceiling and what is above it are not.
	Ceilings []string
}

// ErrNotOwned: a project found above the start folder belongs to another
// user (neither the running user nor root). It wraps ErrNoProject.
var ErrNotOwned = errors.New("owned by another user")

// Find returns the root of the project ctx works on when started in start
// (an absolute folder: -C DIR, else the working folder): the first folder
// from start upward whose .context/context.config.json is a regular file
// (the inner project wins). The walk goes up the physical path, as the
// kernel's `..` does (git, npm and cargo walk from getcwd's): in a folder
// reached through a symbolic link it goes up the link target's parents,
// never the parents of the link, which belong to another tree. The walk
// stops before a ceiling (FindOptions.Ceilings, resolved the same way),
// and it stops, finding nothing, at the top of a git work tree (a folder
// with .git) that has no manifest: a repository is a project of its own.
// Nothing found is no error: start is returned, and the command's own
// check (Check, ReadManifest) says "no ctx project here" and what to do.
// A project found above start is returned as start names it when that
// name leads to the same folder (no link between them), else by its
// physical path.
//
// A project found above start must be trusted (trust): the folder, its
// .context/ and its manifest owned by the running user or by root (git's
// safe.directory), and .context/ and the manifest not writable by every
// user: one another user planted or anyone can write (in /tmp,
// on a shared disk) would choose what ctx fetches and serves from any
// folder below it. Such a one is an error wrapping ErrNoProject and
// ErrNotOwned or ErrWritable that names it and -C, the way to use it
// anyway (start itself, the folder the user chose, is not checked). One
// that only a group can write is taken, and FindOptions.Warn told. See
// DESIGN.md, "Finding the project".
func Find(start string, o FindOptions) (string, error) {
	start = filepath.Clean(start)
	phys := physical(start)
	ceilings := make([]string, len(o.Ceilings))
	for i, c := range o.Ceilings {
		ceilings[i] = physical(c)
	}
	for dir := phys; ; dir = filepath.Dir(dir) {
		if HasManifest(dir) {
			if holder := contextHolder(dir); holder != "" {
				dir = holder // a copy inside a project's .context/ is no project
			}
			if dir == phys {
				return start, nil
			}
			if err := o.check(start, dir); err != nil {
				return "", err
			}
			return named(start, phys, dir), nil
		}
		if isWorkTreeTop(dir) {
			return start, nil
		}
		if up := filepath.Dir(dir); up == dir || slices.Contains(ceilings, up) {
			return start, nil
		}
	}
}

// physical is path with its symbolic links resolved, or path as it is
// when that fails (a folder that is not there: the walk finds nothing).
func physical(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return path
}

// named is root, a folder above phys (start's physical path), as start
// names it: start's parent as many levels up as root is above phys, when
// that leads to root; else root itself (a link between them: start's
// lexical parents are another tree's).
func named(start, phys, root string) string {
	l := start
	for p := phys; p != root && filepath.Dir(p) != p; p = filepath.Dir(p) {
		l = filepath.Dir(l)
	}
	if l == root || physical(l) == root {
		return l
	}
	return root
}

// contextHolder is the project whose .context/ folder holds dir, the
// outermost one, or "" when dir is in none: a manifest there is a copy (an
// installed package's repository carries its own .context/, a backup
// keeps it), which ctx neither made nor trusts, not a project. Only a
// path with a .context part costs a look (Find).
func contextHolder(dir string) string {
	holder := ""
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		up := filepath.Dir(d)
		if up == d {
			return holder
		}
		if filepath.Base(d) == DirName && HasManifest(up) {
			holder = up
		}
	}
}

// HasManifest reports whether dir is a project: its manifest is a regular
// file (the one marker Find, noProject and the git hooks' lines
// (workspace.InstallGitHooks) look for).
func HasManifest(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, DirName, ManifestName))
	return err == nil && st.Mode().IsRegular()
}

// isWorkTreeTop reports whether dir is the top of a git work tree: it has
// .git, a folder or a file (a submodule's, a linked worktree's), where
// Find's walk stops.
func isWorkTreeTop(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// ErrWritable: a project found above the start folder can be changed by
// every user (its .context/ or manifest writable by all). It wraps
// ErrNoProject.
var ErrWritable = errors.New("writable by other users")

// errGroupWritable is trust's finding of a .context/ or manifest that a
// group other than its owner's own can write: said (FindOptions.Warn),
// not refused.
var errGroupWritable = errors.New("writable by its group")

// check refuses the project at dir, found above start, when the folder,
// its .context/ or its manifest is not to be trusted (trust); one its
// group can write is taken, and o.Warn told.
func (o FindOptions) check(start, dir string) error {
	var shared []string
	type checked struct{ path, label string }
	var todo []checked
	for _, name := range []string{"", DirName + "/", Rel(ManifestName)} {
		label := name
		if label == "" {
			label = "the folder"
		}
		todo = append(todo, checked{filepath.Join(dir, filepath.FromSlash(name)), label})
	}
	for i := 0; i < len(todo); i++ {
		p, label := todo[i].path, todo[i].label
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode().Type() == fs.ModeSymlink {
			// What a link leads to holds what ctx reads (.context/'s
			// lock and local file, the manifest's text): it is checked
			// as the link is (own21; git checks the git directory a .git
			// file leads to).
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return err
			}
			todo = append(todo, checked{real, fmt.Sprintf("%s (a link to %s)", label, real)})
		}
		f := systemOwner(p, fi)
		if o.Owner != nil {
			f.uid, f.known = o.Owner(fi)
			f.sid, f.fail = "", ""
		}
		f.home = o.Home != "" && strings.EqualFold(p, filepath.Clean(o.Home))
		why, kind := o.trust(f, label, label == "the folder")
		switch kind {
		case nil:
			continue
		case errGroupWritable:
			shared = append(shared, why)
			continue
		case ErrWritable:
			return fmt.Errorf("%s: %w: the project above it, at %s, is %w (%s): another user could choose what ctx fetches and serves; if you trust it, take their write access away (chmod go-w %s) or run ctx with -C %s",
				start, ErrNoProject, dir, ErrWritable, why, p, dir)
		}
		return fmt.Errorf("%s: %w: the project above it, at %s, is %w (%s): ctx does not take a project another user could have put there; if you trust it, run ctx with -C %s (or `ctx init` to start a project of its own here)",
			start, ErrNoProject, dir, ErrNotOwned, why, dir)
	}
	if len(shared) > 0 && o.Warn != nil {
		o.Warn(fmt.Sprintf("%s: the project above it, at %s, is taken, though others can change it (%s): if they should not, take their write access away (chmod g-w on it)",
			start, dir, strings.Join(shared, "; ")))
	}
	return nil
}

// ownerFacts is what the system says of one file of a project found above
// the start (systemOwner), for trust.
type ownerFacts struct {
	known    bool        // the system records Unix owners (false: any owner is accepted)
	uid, gid int         // the Unix owner and group
	modes    bool        // mode holds Unix permissions (false on Windows)
	mode     fs.FileMode // os.Lstat's
	// On Windows: the owner's SID and the running user's (the process
	// token's), whether the owner is the Administrators group with the
	// process an elevated member of it, and why the owner could not be
	// read ("" when it was).
	sid, user   string
	adminMember bool
	fail        string
	home        bool // the file is the user's home folder (FindOptions.Home)
}

// Well-known SIDs of Windows' owner rule.
const (
	sidAdministrators = "S-1-5-32-544" // BUILTIN\Administrators
	sidWorld          = "S-1-1-0"      // Everyone: a FAT volume's owner of every file
)

// trust is the ownership rule's decision for one file of a project found
// above the start, labelled label in the message, the folder itself when
// folder: why it is not to be trusted, with ErrNotOwned or ErrWritable;
// "", nil when it is. Portable, so that both systems' tables are tested
// everywhere.
//
// Unix (git's safe.directory, sshd's StrictModes): the owner is the
// running user, root, or, running as root, SUDO_UID's user; .context/ and
// the manifest (not a symbolic link, whose mode means nothing) are not
// writable by every user (ErrWritable). Writable by a group that is not
// the owner's private one is errGroupWritable: said, not refused (git
// takes it; sshd's StrictModes, which guards a login, does not). The
// folder's own mode is not asked: whoever can write it can only
// put a .context/ of their own there, which the owner rule refuses.
//
// Windows (git for Windows' is_path_owned_by_current_sid): the owner's SID
// is the running user's, or the Administrators group when the process is
// an elevated member of it; the user's home folder is the user's whoever
// owns it. A FAT volume records no owner (Everyone owns every file): as
// git, refused, saying so.
func (o FindOptions) trust(f ownerFacts, label string, folder bool) (string, error) {
	if f.fail != "" || f.sid != "" {
		switch {
		case f.fail != "":
			return fmt.Sprintf("the owner of %s could not be read: %s", label, f.fail), ErrNotOwned
		case f.home, f.sid == f.user, f.sid == sidAdministrators && f.adminMember:
			return "", nil
		case f.sid == sidWorld:
			return label + " is on a file system that records no owner", ErrNotOwned
		}
		return fmt.Sprintf("%s is owned by %s, not by you (%s)", label, f.sid, f.user), ErrNotOwned
	}
	me := os.Getuid
	if o.UID != nil {
		me = o.UID
	}
	uid := me()
	if f.known && f.uid != uid && f.uid != 0 && (uid != 0 || o.SudoUID <= 0 || f.uid != o.SudoUID) {
		return fmt.Sprintf("%s is user %d's, not yours", label, f.uid), ErrNotOwned
	}
	if !f.modes || folder || f.mode.Type() == fs.ModeSymlink {
		return "", nil
	}
	perm := f.mode.Perm()
	if perm&0o002 != 0 {
		return fmt.Sprintf("%s is writable by every user: %s", label, f.mode), ErrWritable
	}
	private := o.PrivateGroup
	if private == nil {
		private = privateGroup
	}
	if perm&0o020 != 0 && !private(f.uid, f.gid) {
		return fmt.Sprintf("%s is writable by group %d, which is not its owner's own: %s", label, f.gid, f.mode), errGroupWritable
	}
	return "", nil
}

// privateGroup reports whether gid is the user uid's private group: the
// user's primary group, named as the user (the convention of
// USERGROUPS_ENAB, which makes a umask of 002 safe). The members of a
// group are not asked (os/user does not list them): a group named as a
// user and primary to it is taken to be that user's alone.
func privateGroup(uid, gid int) bool {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil || u.Gid != strconv.Itoa(gid) {
		return false
	}
	g, err := user.LookupGroupId(u.Gid)
	return err == nil && g.Name == u.Username
}
