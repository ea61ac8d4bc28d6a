package testtmp

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// fakeM is a test binary's m: it records TMPDIR and what it wrote there.
type fakeM struct {
	t      *testing.T
	tmpdir string
	code   int
}

func (m *fakeM) Run() int {
	m.tmpdir = os.Getenv("TMPDIR")
	if os.TempDir() != m.tmpdir {
		m.t.Errorf("os.TempDir() = %q, TMPDIR %q", os.TempDir(), m.tmpdir)
	}
	// A test's leftovers, a read-only folder among them.
	d, err := os.MkdirTemp("", "x")
	if err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o644); err != nil {
		m.t.Fatal(err)
	}
	if err := os.Chmod(d, 0o500); err != nil {
		m.t.Fatal(err)
	}
	return m.code
}

// anyFree lets a root with any free space count as tmpfs (a test's root is
// an ordinary folder), and skips where free space cannot be read.
func anyFree(t *testing.T) {
	t.Helper()
	if _, ok := freeBytes(t.TempDir()); !ok {
		t.Skip("no free-space reading on this system: the default folder is always kept")
	}
	old := minFree
	minFree = 0
	t.Cleanup(func() { minFree = old })
}

func TestRunOnTmpfsRoot(t *testing.T) {
	anyFree(t)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("CTX_TEST_TMPDIR", "")
	root := t.TempDir()
	m := &fakeM{t: t, code: 3}
	if got := Run(m, root); got != 3 {
		t.Fatalf("Run returned %d, want m's 3", got)
	}
	if filepath.Dir(m.tmpdir) != root || !strings.HasPrefix(filepath.Base(m.tmpdir), prefix) {
		t.Fatalf("TMPDIR during the run was %q, want a %s folder under %s", m.tmpdir, prefix, root)
	}
	if _, err := os.Lstat(m.tmpdir); !os.IsNotExist(err) {
		t.Fatalf("the folder %s is left after the run (%v)", m.tmpdir, err)
	}
}

func TestRunKeepsDefault(t *testing.T) {
	for name, setup := range map[string]func(t *testing.T) string{
		"missing root": func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") },
		"root a file": func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"too little free space": func(t *testing.T) string {
			old := minFree
			minFree = math.MaxUint64
			t.Cleanup(func() { minFree = old })
			return t.TempDir()
		},
		"opted out": func(t *testing.T) string {
			t.Setenv("CTX_TEST_TMPDIR", "default")
			return t.TempDir()
		},
	} {
		t.Run(name, func(t *testing.T) {
			def := t.TempDir()
			t.Setenv("TMPDIR", def)
			t.Setenv("CTX_TEST_TMPDIR", "")
			root := setup(t)
			m := &fakeM{t: t}
			Run(m, root)
			if m.tmpdir != def {
				t.Fatalf("TMPDIR during the run was %q, want the default %q", m.tmpdir, def)
			}
		})
	}
}

func TestUseRemovesStaleFolders(t *testing.T) {
	anyFree(t)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("CTX_TEST_TMPDIR", "")
	root := t.TempDir()
	// A process id no process has (above Linux's pid_max, 2^22), one that
	// runs (this one's parent), and a folder that is not ours.
	stale := filepath.Join(root, prefix+"99999999-1")
	live := filepath.Join(root, prefix+strconv.Itoa(os.Getppid())+"-1")
	other := filepath.Join(root, "someone-else")
	for _, d := range []string{stale, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(stale, "sub"), 0o500); err != nil {
		t.Fatal(err)
	}
	dir, ok := Use(root)
	if !ok {
		t.Fatal("Use did not use a writable root")
	}
	defer RemoveAll(dir)
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale folder is still there (%v)", err)
	}
	for _, d := range []string{live, other, dir} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

// gcM is a test binary's m that records the collector's target during
// the run.
type gcM struct{ percent int }

func (m *gcM) Run() int {
	m.percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(m.percent)
	return 0
}

// TestRunSetsGCPercent: with GOGC unset Run collects at GCPercent; a GOGC
// in the environment (a child measuring the product's memory, or whoever
// runs the tests) is left as the runtime read it.
func TestRunSetsGCPercent(t *testing.T) {
	before := debug.SetGCPercent(-1)
	debug.SetGCPercent(before)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	t.Setenv("CTX_TEST_TMPDIR", "default")

	t.Setenv("GOGC", "")
	debug.SetGCPercent(100)
	m := &gcM{}
	Run(m, t.TempDir())
	if m.percent != GCPercent {
		t.Errorf("GOGC unset: the run collected at %d, want %d", m.percent, GCPercent)
	}

	t.Setenv("GOGC", "100")
	debug.SetGCPercent(100)
	m = &gcM{}
	Run(m, t.TempDir())
	if m.percent != 100 {
		t.Errorf("GOGC=100: the run collected at %d, want 100 (left alone)", m.percent)
	}
}

// TestSetParallelLeavesAGivenValue: the waiting packages' parallelism is
// set only when the command line did not give -test.parallel.
func TestSetParallelLeavesAGivenValue(t *testing.T) {
	newFS := func(args ...string) *flag.FlagSet {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.Int("test.parallel", 2, "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs
	}
	fs := newFS()
	if !setParallel(fs, 7) || fs.Lookup("test.parallel").Value.String() != "7" {
		t.Errorf("no -test.parallel: got %s, want 7", fs.Lookup("test.parallel").Value)
	}
	fs = newFS("-test.parallel", "1")
	if setParallel(fs, 7) || fs.Lookup("test.parallel").Value.String() != "1" {
		t.Errorf("-test.parallel 1 given: got %s, want 1 (left alone)", fs.Lookup("test.parallel").Value)
	}
	fs = flag.NewFlagSet("other", flag.ContinueOnError)
	if setParallel(fs, 7) {
		t.Error("a flag set without test.parallel: set")
	}
}

// TestSetWaitingParallelOnTheCommandLine: the binary's own -test.parallel
// is what SetWaitingParallel reads: this binary ran without it unless go
// test was given -parallel, and then it is left as given.
func TestSetWaitingParallelOnTheCommandLine(t *testing.T) {
	f := flag.CommandLine.Lookup("test.parallel")
	if f == nil {
		t.Fatal("no test.parallel flag in the test binary")
	}
	before := f.Value.String()
	t.Cleanup(func() { f.Value.Set(before) })
	given := false
	flag.CommandLine.Visit(func(v *flag.Flag) { given = given || v.Name == "test.parallel" })
	SetWaitingParallel()
	want := strconv.Itoa(WaitingParallel * runtime.GOMAXPROCS(0))
	if given {
		want = before
	}
	if got := f.Value.String(); got != want {
		t.Errorf("after SetWaitingParallel: test.parallel %s, want %s (given on the command line: %v)", got, want, given)
	}
}

// envM is a test binary's m that records an environment variable during
// the run (what the processes it starts inherit).
type envM struct{ key, value string }

func (m *envM) Run() int {
	m.value = os.Getenv(m.key)
	return 0
}

// TestRunSetsGlibcTunables: with GLIBC_TUNABLES unset, the processes a test
// starts run with GlibcTunables; a value in the environment (whoever runs
// the tests) is left alone.
func TestRunSetsGlibcTunables(t *testing.T) {
	t.Setenv("CTX_TEST_TMPDIR", "default")
	t.Setenv("GLIBC_TUNABLES", "")
	m := &envM{key: "GLIBC_TUNABLES"}
	Run(m, t.TempDir())
	if m.value != GlibcTunables {
		t.Errorf("GLIBC_TUNABLES unset: the run had %q, want %q", m.value, GlibcTunables)
	}
	t.Setenv("GLIBC_TUNABLES", "glibc.malloc.check=0")
	m = &envM{key: "GLIBC_TUNABLES"}
	Run(m, t.TempDir())
	if m.value != "glibc.malloc.check=0" {
		t.Errorf("GLIBC_TUNABLES given: the run had %q, want it left alone", m.value)
	}
}
