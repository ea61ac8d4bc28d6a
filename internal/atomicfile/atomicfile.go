// Package atomicfile writes a file atomically: readers see the old or the
// new bytes, never a mix. It imports no ctx package but
// internal/boundedfile.
package atomicfile

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// WriteFile writes data to name through a temp file in the same
// directory, fsync and rename, so readers see the old or the new bytes, never
// a mix. When name already holds exactly data, nothing is written.
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	return write(name, data, perm, true)
}

// WriteCache is WriteFile without the fsyncs of the file and of its
// directory, for a cache: a file whose every reader takes what does not
// decode as absent and makes it again, so that losing the new bytes to a
// power cut (the old file, or an empty one, after it) costs a recount,
// never a wrong answer. Readers still see the old or the new bytes.
func WriteCache(name string, data []byte, perm fs.FileMode) error {
	return write(name, data, perm, false)
}

// WriteStaged is WriteFile without the fsync of the directory: the
// file's bytes are on disk before it is renamed, and its name is not
// made durable, for a file its caller renames on into another directory
// and syncs that one (workspace's staged state: the lost name costs a
// recovery what a stop before the write costs, and the commit syncs the
// directory the file ends in).
func WriteStaged(name string, data []byte, perm fs.FileMode) error {
	return writeSync(name, data, perm, true, false)
}

func write(name string, data []byte, perm fs.FileMode, sync bool) error {
	return writeSync(name, data, perm, sync, sync)
}

func writeSync(name string, data []byte, perm fs.FileMode, sync, syncDir bool) error {
	// The file there is compared only when it is a regular file of no
	// more bytes than data (boundedfile): a fifo or a device in its place
	// (a project unpacked from a tar archive keeps fifos) is replaced by
	// the rename without waiting on it (red23: a fifo at meta.own.json or
	// a state file hung every search or install), and a large file is not
	// read to be told apart.
	if old, err := boundedfile.ReadFile(name, int64(len(data))); err == nil && bytes.Equal(old, data) {
		return nil
	}
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	renamed := false
	defer func() {
		// Only a failed write leaves its temp file: once renamed there is
		// nothing to remove (os.Remove's unlink and rmdir were two
		// syscalls per write for nothing).
		if !renamed {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	renamed = true
	if syncDir {
		SyncDir(dir)
	}
	return nil
}

// SyncDir flushes a directory's entries (after a rename) where the system
// supports it; errors are ignored, as some file systems refuse.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
