// Package confine keeps ctx's writes and deletes inside the directory it
// owns, a project's .context/. A cloned repository can commit a symbolic
// link anywhere in there (.context/.tmp -> .., .context/index -> /elsewhere),
// and a write or delete through it would reach files ctx does not own. So
// every write and delete under .context/ goes through a Dir, which looks at
// each element of the path (lstat) and refuses to pass through a link: it
// names the link and says to remove it (ctx recreates what it needs).
//
// A link may be the last element only of an operation that acts on the link
// itself and never on what it points to: Remove, RemoveAll and the source of
// Rename. Everything else (creating, writing, locking, changing a mode,
// the target of a rename) refuses a link at any element, the last included.
//
// The check and the operation are two system calls, so a process racing ctx
// could swap an element in between; the threat is a link committed to a
// repository, which is there before ctx starts.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/naming"
)

// CannotWrite reports whether err means that a directory cannot be written
// (permission denied, a read-only file system such as a container mount):
// the one test of it for the indexer, workspace, the MCP server and the
// https cache, which then read what is there instead of failing.
func CannotWrite(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// ErrLink is wrapped by every refusal to pass through a symbolic link.
var ErrLink = errors.New("symbolic link in .context/")

// LinkError names a symbolic link a Dir refused to pass through.
type LinkError struct {
	Path   string // as shown: .context/<rel>
	Target string // what the link points to, when it could be read
}

func (e *LinkError) Error() string {
	to := ""
	if e.Target != "" {
		to = fmt.Sprintf(" (to %s)", e.Target)
	}
	return fmt.Sprintf("%s is a symbolic link%s: ctx does not follow links in .context/, a repository may have committed it; remove it (ctx recreates what it needs) and run ctx again", e.Path, to)
}

func (e *LinkError) Unwrap() error { return ErrLink }

// Dir is a directory ctx owns (a project's .context/), by absolute path.
// Paths given to its methods are either absolute paths inside it or
// relative to it (slash- or OS-separated), and must stay inside it.
type Dir struct {
	root     string
	readOnly bool
}

// ErrReadOnly is returned by every write or delete of a Dir made by
// ReadOnly: a command that opened the project to read it tried to change it.
var ErrReadOnly = errors.New("internal error: write to a project opened read-only")

// ReadOnly returns d with every write and delete refused (ErrReadOnly).
func (d Dir) ReadOnly() Dir {
	d.readOnly = true
	return d
}

// New returns the Dir at root (made absolute).
func New(root string) Dir {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return Dir{root: filepath.Clean(root)}
}

// Root is the directory's path.
func (d Dir) Root() string { return d.root }

// Path is the absolute path of rel inside d. It does not check anything.
func (d Dir) Path(rel string) string {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel)
	}
	return filepath.Join(d.root, filepath.FromSlash(rel))
}

// show is how a path is named in errors: .context/<rel>.
func (d Dir) show(p string) string {
	rel, err := filepath.Rel(filepath.Dir(d.root), p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// Check reports an error when d itself or an element of rel is a symbolic
// link, or when rel leaves d. Elements that do not exist are fine (ctx
// creates them as directories); so is an element that is not a directory
// (the operation fails on it by itself).
func (d Dir) Check(rel string) error { return d.links(rel, false) }

func (d Dir) check(rel string, lastMayLink bool) error {
	if d.readOnly {
		return fmt.Errorf("%s: %w", d.show(d.Path(rel)), ErrReadOnly)
	}
	return d.links(rel, lastMayLink)
}

func (d Dir) links(rel string, lastMayLink bool) error {
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(d.root, rel)
		if err != nil {
			return fmt.Errorf("internal error: %q is not inside %s", rel, d.root)
		}
		rel = r
	}
	rel = filepath.Clean(filepath.FromSlash(rel))
	if filepath.IsAbs(rel) || !naming.Within(".", rel) {
		return fmt.Errorf("internal error: %q is not inside %s", rel, d.root)
	}
	var elems []string
	if rel != "." {
		elems = strings.Split(rel, string(filepath.Separator))
	}
	p := d.root
	for i := -1; i < len(elems); i++ {
		if i >= 0 {
			p = filepath.Join(p, elems[i])
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if lastMayLink && i == len(elems)-1 && i >= 0 {
				return nil
			}
			t, _ := os.Readlink(p)
			return &LinkError{Path: d.show(p), Target: t}
		}
		if !fi.IsDir() {
			return nil
		}
	}
	return nil
}

// MkdirAll creates rel and its parents inside d.
func (d Dir) MkdirAll(rel string, perm fs.FileMode) error {
	if err := d.check(rel, false); err != nil {
		return err
	}
	return os.MkdirAll(d.Path(rel), perm)
}

// Mkdir creates the directory rel.
func (d Dir) Mkdir(rel string, perm fs.FileMode) error {
	if err := d.check(rel, false); err != nil {
		return err
	}
	return os.Mkdir(d.Path(rel), perm)
}

// Remove deletes rel (a file, an empty directory, or a link itself).
func (d Dir) Remove(rel string) error {
	if err := d.check(rel, true); err != nil {
		return err
	}
	return os.Remove(d.Path(rel))
}

// RemoveAll deletes rel and everything under it (a link itself, never what
// it points to). Missing is not an error.
func (d Dir) RemoveAll(rel string) error {
	if err := d.check(rel, true); err != nil {
		return err
	}
	return os.RemoveAll(d.Path(rel))
}

// Rename moves from to to, both inside d.
func (d Dir) Rename(from, to string) error {
	if err := d.check(from, true); err != nil {
		return err
	}
	if err := d.check(to, false); err != nil {
		return err
	}
	return os.Rename(d.Path(from), d.Path(to))
}

// Link makes to a hard link of the file from (not a link: a symbolic link
// is refused, as os.Link may follow it), both inside d.
func (d Dir) Link(from, to string) error {
	if err := d.check(from, false); err != nil {
		return err
	}
	if err := d.check(to, false); err != nil {
		return err
	}
	return os.Link(d.Path(from), d.Path(to))
}

// WriteFileAtomic writes rel through atomicfile.WriteFile (temp file,
// fsync, rename), creating its parent directories.
func (d Dir) WriteFileAtomic(rel string, data []byte, perm fs.FileMode) error {
	return d.writeReplacing(rel, data, perm, atomicfile.WriteFile)
}

// WriteCacheAtomic writes rel through atomicfile.WriteCache (temp file,
// rename, no fsync), creating its parent directories: for a cache, or a
// file its caller syncs later (the indexer's durability pass, durable).
func (d Dir) WriteCacheAtomic(rel string, data []byte, perm fs.FileMode) error {
	return d.writeReplacing(rel, data, perm, atomicfile.WriteCache)
}

// WriteStagedAtomic writes rel through atomicfile.WriteStaged (temp
// file, fsync, rename; the directory not synced), creating its parent
// directories: for a file its caller renames on and syncs where it ends.
func (d Dir) WriteStagedAtomic(rel string, data []byte, perm fs.FileMode) error {
	return d.writeReplacing(rel, data, perm, atomicfile.WriteStaged)
}

// writeReplacing checks rel (no link on its way, not read-only), creates
// its parent directories and writes it with write, one of atomicfile's
// (a temp file renamed over rel).
func (d Dir) writeReplacing(rel string, data []byte, perm fs.FileMode, write func(string, []byte, fs.FileMode) error) error {
	if err := d.check(rel, false); err != nil {
		return err
	}
	p := d.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return write(p, data, perm)
}

// WriteFile writes rel in place (os.WriteFile), for files that must keep
// their identity, such as a lock file.
func (d Dir) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	if err := d.check(rel, false); err != nil {
		return err
	}
	return os.WriteFile(d.Path(rel), data, perm)
}

// Truncate empties rel in place.
func (d Dir) Truncate(rel string) error {
	if err := d.check(rel, false); err != nil {
		return err
	}
	return os.Truncate(d.Path(rel), 0)
}

// Create creates the new file rel (O_EXCL) for writing.
func (d Dir) Create(rel string, perm fs.FileMode) (*os.File, error) {
	if err := d.check(rel, false); err != nil {
		return nil, err
	}
	return os.OpenFile(d.Path(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// Chmod changes the permission bits of rel, which must not be a link
// (os.Chmod would change what it points to).
func (d Dir) Chmod(rel string, perm fs.FileMode) error {
	if err := d.check(rel, false); err != nil {
		return err
	}
	return os.Chmod(d.Path(rel), perm)
}

// Symlink creates the link rel pointing to target (as copied from a package).
func (d Dir) Symlink(target, rel string) error {
	if err := d.check(rel, false); err != nil {
		return err
	}
	return os.Symlink(target, d.Path(rel))
}
