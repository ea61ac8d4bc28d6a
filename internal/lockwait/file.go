package lockwait

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/gofrs/flock"
)

// File is the lock file at path, created when missing, never through a
// symbolic link: a folder others can write (a shared cache, CTX_CACHE)
// can hold a link planted where ctx's lock goes, and opening it with
// O_CREATE would make an empty file wherever it points, as the user
// running ctx (own21). On Unix the open says O_NOFOLLOW, so the kernel
// refuses a link at path; elsewhere (Windows, where making a link needs a
// privilege) path is looked at first. Taking it then fails with
// ErrLinkedLock, naming path.
func File(path string) *flock.Flock {
	flag := os.O_CREATE | os.O_RDONLY
	switch runtime.GOOS {
	case "aix", "solaris", "illumos":
		flag = os.O_CREATE | os.O_RDWR // as flock.New: no exclusive lock on a read-only file there
	}
	return flock.New(path, flock.SetFlag(flag|noFollow))
}

// ErrLinkedLock: a lock file is a symbolic link, which ctx never makes.
var ErrLinkedLock = errors.New("is a symbolic link, not a lock file ctx made")

// linked is err, a lock's error at taking it, said as ErrLinkedLock when
// path is a symbolic link (O_NOFOLLOW's ELOOP, or, without O_NOFOLLOW,
// looked at before the open).
func linked(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode().Type() == fs.ModeSymlink {
		return fmt.Errorf("%s %w (another user of the folder may have put it there): ctx does not open it; remove it and run again", path, ErrLinkedLock)
	}
	return err
}
