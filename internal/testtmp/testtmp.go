// Package testtmp puts a test binary's temporary files (t.TempDir,
// os.MkdirTemp, os.CreateTemp: everything that reads TMPDIR) on tmpfs,
// /dev/shm, when the machine has one that can be written. There an fsync
// costs nothing: the crash, disk-full and stop-at-every-step matrices check
// that ctx calls fsync at the right points (their faults are injected), not
// that a disk honours it, so every check holds and the suite's system time
// drops (bench/README.md, issue 30 round 4). Where /dev/shm is missing or
// read-only, has less than 2 GiB free, is not on a Unix system, or
// CTX_TEST_TMPDIR=default, the default temporary directory is
// kept. It is a test helper: no ctx package imports it outside its tests.
package testtmp

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// Root is where Main makes its folder when it can.
const Root = "/dev/shm"

// minFree is the free space root must have for Main to use it: the
// suite's packages write a few hundred megabytes at most at once (fixture
// repositories, indexes), and a container's /dev/shm is often 64 MB. A
// variable for this package's tests.
var minFree uint64 = 2 << 30

// prefix names Main's folders: prefix + the process id + a random suffix.
const prefix = "ctx-testtmp-"

// M is the part of *testing.M that Main uses.
type M interface{ Run() int }

// Main is a package's TestMain: it runs m with TMPDIR pointing at a new
// folder under Root (see the package comment), removes the folder after,
// and exits with m's code.
func Main(m M) {
	os.Exit(Run(m, Root))
}

// GCPercent is the garbage collector's target that Run sets for the test
// binary when GOGC is not set: a test binary's heap is small and its life
// short, and with Go's default of 100 it collected 90–280 times a run
// (indexer, mcpserver: GODEBUG=gctrace=1), the idle workers of each cycle
// burning a core a process waits on git or a server (bench/README.md,
// issue 30 round 8). The processes a test starts (git, ctx, a test
// binary's child) keep their own setting: a child measuring the
// product's memory sets GOGC=100 in its environment.
const GCPercent = 400

// GlibcTunables is the GLIBC_TUNABLES that Run gives the processes a test
// starts (git, sh; ctx's Go processes do not read it) when it is not set:
// glibc's malloc then never gives the top of its heap back to the kernel
// (a trim threshold of 256 MiB; each trim is a brk that shrinks the heap
// and flushes the TLB, dear on this suite's virtual machines). A git
// process is short and its heap small: 200 git processes took 9.7 s of
// CPU, 5.2 s with it (bench/README.md, issue 30 round 13). What the
// processes do and answer is the same; only when their memory goes back.
const GlibcTunables = "glibc.malloc.trim_threshold=268435456"

// Run is Main without the exit, with the tmpfs root as a parameter (a
// test of this package points it elsewhere). It returns m.Run's code.
// Unless GOGC is set, it collects at GCPercent; unless GLIBC_TUNABLES is
// set, it sets GlibcTunables for the processes the tests start.
func Run(m M, root string) int {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GLIBC_TUNABLES") == "" {
		os.Setenv("GLIBC_TUNABLES", GlibcTunables)
	}
	dir, ok := Use(root)
	if !ok {
		return m.Run()
	}
	defer RemoveAll(dir)
	return m.Run()
}

// Use makes a new folder under root and sets TMPDIR to it, and reports
// whether it did. It first removes the folders that test binaries no
// longer running left under root (a binary killed by go test's timeout
// cannot clean up, and tmpfs is memory). It does nothing when
// CTX_TEST_TMPDIR is "default", or root is not a writable folder.
func Use(root string) (string, bool) {
	if os.Getenv("CTX_TEST_TMPDIR") == "default" {
		return "", false
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return "", false
	}
	if free, ok := freeBytes(root); !ok || free < minFree {
		return "", false // a container's /dev/shm is often 64 MB: too small
	}
	removeStale(root)
	dir, err := os.MkdirTemp(root, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", false // read-only, full, or not ours to write
	}
	if err := os.Setenv("TMPDIR", dir); err != nil {
		_ = os.Remove(dir)
		return "", false
	}
	return dir, true
}

// removeStale removes root's folders named for a process that has ended.
func removeStale(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		RemoveAll(filepath.Join(root, e.Name()))
	}
}

// RemoveAll removes dir and everything under it, first making writable
// the folders a test left read-only (os.RemoveAll cannot empty them).
// Errors are reported on stderr: a leftover folder is not a test failure.
func RemoveAll(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if info, err := d.Info(); err == nil && info.Mode().Perm()&0o700 != 0o700 {
				_ = os.Chmod(p, info.Mode().Perm()|0o700)
			}
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "testtmp: %v\n", err)
	}
}
