package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// FindOptions are Find's seams. The zero value reads the file system's
// owners and the running user's id.
type FindOptions struct {
	// Owner returns the user id that owns fi (an os.Lstat result) and
	// whether the system has Unix owners at all (false: every owner is
	// accepted). nil: fileOwner. Tests simulate another user's files.
	Owner func(fi fs.FileInfo) (uid int, known bool)
	// UID is the running user's id; nil: os.Getuid.
	UID func() int
	// SudoUID is the id of the user who ran ctx through sudo (SUDO_UID,
	// read by cmd/ctx; 0: none). When ctx runs as root, a project owned
	// by that user is accepted too, as git's safe.directory does: `sudo
	// ctx …` in a subfolder of the user's own project works on it. Not
	// running as root it is ignored (anyone can set SUDO_UID).
	SudoUID int
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
// (the inner project wins). The walk stops before a ceiling
// (FindOptions.Ceilings), and it stops, finding nothing, at the top of
// a git work tree (a folder with .git) that has no manifest: a repository
// is a project of its own. Nothing found is no error: start is returned,
// and the command's own check (Check, ReadManifest) says "no ctx project
// here" and what to do.
//
// A project found above start must be owned, its .context/ folder and its
// manifest, by the running user or by root (git's safe.directory): one
// another user planted (in /tmp, on a shared disk) would choose what ctx
// fetches and serves from any folder below it. Such a one is an error
// wrapping ErrNoProject and ErrNotOwned that names it and -C, the way to
// use it anyway (start itself, the folder the user chose, is not checked).
// See DESIGN.md, "Finding the project".
func Find(start string, o FindOptions) (string, error) {
	start = filepath.Clean(start)
	for dir := start; ; dir = filepath.Dir(dir) {
		if HasManifest(dir) {
			if holder := contextHolder(dir); holder != "" {
				dir = holder // a copy inside a project's .context/ is no project
			}
			if dir != start {
				if err := o.check(start, dir); err != nil {
					return "", err
				}
			}
			return dir, nil
		}
		if isWorkTreeTop(dir) {
			return start, nil
		}
		if up := filepath.Dir(dir); up == dir || slices.Contains(o.Ceilings, up) {
			return start, nil
		}
	}
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

// check refuses the project at dir, found above start, when its .context/
// or its manifest is owned by another user than the running one or root.
func (o FindOptions) check(start, dir string) error {
	owner, uid := o.Owner, o.UID
	if owner == nil {
		owner = fileOwner
	}
	if uid == nil {
		uid = os.Getuid
	}
	me := uid()
	for _, name := range []string{DirName + "/", Rel(ManifestName)} {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		who, known := owner(fi)
		if !known || who == me || who == 0 || (me == 0 && o.SudoUID > 0 && who == o.SudoUID) {
			continue
		}
		return fmt.Errorf("%s: %w: the project above it, at %s, is %w (%s is user %d's, not yours): ctx does not take a project another user could have put there; if you trust it, run ctx with -C %s (or `ctx init` to start a project of its own here)",
			start, ErrNoProject, dir, ErrNotOwned, name, who, dir)
	}
	return nil
}
