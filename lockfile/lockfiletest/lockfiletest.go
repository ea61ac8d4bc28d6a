// Package lockfiletest reads and writes lockfiles for tests and
// benchmarks: fixtures ctx did not write through a command, and checks of
// what a command wrote. ctx itself reads the project's lock through
// project.ReadLock and writes it with the workspace's commit.
package lockfiletest

import (
	"os"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/lockfile"
)

// Read reads and parses the lockfile at path, not checking its entries'
// kinds (lockfile.Parse with no PinCheck). A missing file returns an
// error wrapping fs.ErrNotExist.
func Read(path string) (*lockfile.Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return lockfile.Parse(path, data, nil)
}

// Write writes l's canonical bytes (Lock.Marshal) to path atomically, and
// leaves the file untouched when its bytes would not change.
func Write(path string, l *lockfile.Lock) error {
	data, err := l.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}
