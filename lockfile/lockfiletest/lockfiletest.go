// Package lockfiletest reads and writes lockfiles for tests and
// benchmarks: fixtures ctx did not write through a command, and checks of
// what a command wrote. ctx itself reads the project's lock through
// project.ReadLock and writes it with the workspace's commit.
package lockfiletest

import (
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
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

// WriteInstalled writes l as the lock of the project whose .context folder
// is ctxDir, and, for each of its packages with no state file yet, the
// state file ctx install leaves (.state/<alias>.json, with no file
// records): a fixture whose packages/ folders it wrote by hand, which the
// index and the MCP server take as installed only with one
// (project.InstalledHere, mcppkg21).
func WriteInstalled(ctxDir string, l *lockfile.Lock) error {
	if err := Write(filepath.Join(ctxDir, project.LockName), l); err != nil {
		return err
	}
	for alias, e := range l.Packages {
		p := filepath.Join(ctxDir, project.StateDir, alias+".json")
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(`{"withheld":null,"commit":"`+e.Rev+`","files":[]}`), 0o644); err != nil {
			return err
		}
	}
	return nil
}
