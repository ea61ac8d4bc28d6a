package lockwait

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/gofrs/flock"
)

// File is the lock file at path, created when missing, never through a
// symbolic link and never waiting on a fifo: a folder others can write (a
// shared cache, CTX_CACHE) can hold a link planted where ctx's lock goes,
// and opening it with O_CREATE would make an empty file wherever it
// points, as the user running ctx (own21); or a fifo, whose open waited
// for a writer forever (review of own21). On Unix the open says
// O_NOFOLLOW, so the kernel refuses a link at path; elsewhere (Windows,
// where making a link needs a privilege) path is looked at first. Taking
// it then fails with ErrLinkedLock, naming path. The open says
// boundedfile.NonBlock too, and a lock file taken that is not a regular
// file is let go and refused (boundedfile.ErrNotRegular, naming it).
func File(path string) *flock.Flock {
	flag := os.O_CREATE | os.O_RDONLY
	switch runtime.GOOS {
	case "aix", "solaris", "illumos":
		flag = os.O_CREATE | os.O_RDWR // as flock.New: no exclusive lock on a read-only file there
	}
	return flock.New(path, flock.SetFlag(flag|noFollow|boundedfile.NonBlock))
}

// Existing is the lock file at path as File opens it (never through a
// symbolic link, never waiting on a fifo) but read-only and never created:
// for a reader's shared lock on a file it finds, in a folder it may not be
// able to write (a read-only project). A missing file is the open's
// fs.ErrNotExist.
func Existing(path string) *flock.Flock {
	return flock.New(path, flock.SetFlag(os.O_RDONLY|noFollow|boundedfile.NonBlock))
}

// ErrLinkedLock: a lock file is a symbolic link, which ctx never makes.
var ErrLinkedLock = errors.New("is a symbolic link, not a lock file ctx made")

// linked is err, a lock's error at taking it, said as ErrLinkedLock when
// path is a symbolic link (O_NOFOLLOW's ELOOP, or, without O_NOFOLLOW,
// looked at before the open), or as boundedfile.ErrNotRegular when it is
// another file that is not a regular one (a fifo, a socket, a folder).
func linked(path string, err error) error {
	fi, lerr := os.Lstat(path)
	switch {
	case lerr != nil:
		return err
	case fi.Mode().Type() == fs.ModeSymlink:
		return fmt.Errorf("%s %w (another user of the folder may have put it there): ctx does not open it; remove it and run again", path, ErrLinkedLock)
	case !fi.Mode().IsRegular():
		return notRegular(path, fi.Mode())
	}
	return err
}

// notRegular is the refusal of a lock file at path of mode m, not a
// regular file.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s, not a lock file ctx made (another user of the folder may have put it there): %w; remove it and run again", path, boundedfile.Describe(m), boundedfile.ErrNotRegular)
}
