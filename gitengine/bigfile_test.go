package gitengine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// bigFileSize is the size of the file TestBigFileOverHTTPBoundedMemory
// fetches; its content compresses to a few hundred KB, so the test moves
// little over the wire while a parser that holds objects whole must take
// all of it into memory.
const bigFileSize = 96 << 20

// bigFileMaxRSS is the peak RSS the fetching process may reach: well under
// the file's size (the process needs about 20 MB; holding the file whole
// takes more than bigFileSize).
const bigFileMaxRSS = 64 << 20

// TestBigFileOverHTTPBoundedMemory fetches a package holding a 96 MB file
// over smart HTTP in a child process, once with a limit under the file's
// size (the file is skipped, named with the limit) and once with none (the
// file is written), and checks the child's peak RSS (VmHWM) stays far below
// the file's size: the pack is stored without holding the object in memory.
//
// Parallel with the other tests: a child's peak RSS is its own memory, which
// what other processes do does not change (the Go collector's assists keep
// its heap near its goal however little CPU it gets); 16 MB measured, 39 MB
// under -race, both with other tests running, against the bound of 64.
func TestBigFileOverHTTPBoundedMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc/self/status (VmHWM)")
	}
	needGit(t)
	t.Parallel()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	commit, bigID := bigFileRepo(t, filepath.Join(root, "repo.git"))
	s, err := gittest.Serve(root, gittest.ServeOptions{Memo: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	for _, tc := range []struct {
		name  string
		limit int64
	}{{"limit", 50 << 20}, {"nolimit", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "pkg")
			cmd := exec.Command(os.Args[0], "-test.run=^TestBigFileChild$", "-test.v")
			// GOGC=100, Go's default: the child measures the product's
			// memory, not under the test binaries' collector setting
			// (testtmp.GCPercent).
			cmd.Env = append(os.Environ(), "GOGC=100", "CTX_BIGFILE_CHILD="+strings.Join([]string{
				s.URL + "/repo.git", commit, strconv.FormatInt(tc.limit, 10), dest, t.TempDir()}, "\n"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var rep bigFileReport
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if l, ok := strings.CutPrefix(sc.Text(), "BIGFILE "); ok {
					if err := json.Unmarshal([]byte(l), &rep); err != nil {
						t.Fatal(err)
					}
				}
			}
			if rep.HWM == 0 {
				t.Fatalf("no report from the child:\n%s", out)
			}
			t.Logf("peak RSS %d MB for a %d MB file", rep.HWM>>20, bigFileSize>>20)
			if rep.HWM > bigFileMaxRSS {
				t.Errorf("peak RSS %d MB, want at most %d MB (the %d MB file was held in memory)", rep.HWM>>20, bigFileMaxRSS>>20, bigFileSize>>20)
			}
			fi, statErr := os.Stat(filepath.Join(dest, "big.bin"))
			if tc.limit > 0 {
				want := "big.bin: file of 100663296 bytes is over the size limit of 52428800 bytes (CTX_MAX_FILE_SIZE)"
				if len(rep.Skipped) != 1 || rep.Skipped[0] != want {
					t.Errorf("skipped %q, want [%q]", rep.Skipped, want)
				}
				if statErr == nil {
					t.Errorf("big.bin written despite the limit")
				}
				return
			}
			if len(rep.Skipped) != 0 || statErr != nil || fi.Size() != bigFileSize {
				t.Fatalf("big.bin not written whole: skipped %q, %v, %v", rep.Skipped, fi, statErr)
			}
			if rep.BigID != bigID {
				t.Errorf("big.bin's blob id %s, want %s", rep.BigID, bigID)
			}
			if err := sameAsBig(filepath.Join(dest, "big.bin")); err != nil {
				t.Errorf("big.bin's content differs: %v", err)
			}
		})
	}
}

// bigLine is the big file's content, over and over, cut at bigFileSize.
const bigLine = "a line of a big file that compresses well\n"

// bigReader streams the big file's content, without holding it (the test's
// own memory is not measured, but 96 MB made, written and read back again
// whole cost seconds of page faults).
func bigReader() io.Reader { return io.LimitReader(&lineRepeater{}, bigFileSize) }

// lineRepeater reads bigLine over and over.
type lineRepeater struct{ off int }

func (r *lineRepeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], bigLine[r.off:])
		n += c
		r.off = (r.off + c) % len(bigLine)
	}
	return n, nil
}

// sameAsBig reports how the file at p differs from the big file's
// content, read in pieces, or nil.
func sameAsBig(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	want, got := bufio.NewReaderSize(bigReader(), 1<<20), bufio.NewReaderSize(f, 1<<20)
	a, b := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); ; {
		n, werr := io.ReadFull(want, a)
		m, gerr := io.ReadFull(got, b)
		if n != m || !bytes.Equal(a[:n], b[:m]) {
			return fmt.Errorf("differs within bytes %d to %d", off, off+int64(max(n, m)))
		}
		off += int64(n)
		if werr != nil || gerr != nil {
			if werr == gerr || (werr == io.ErrUnexpectedEOF && gerr == io.ErrUnexpectedEOF) {
				return nil
			}
			return fmt.Errorf("at byte %d: %v, %v", off, werr, gerr)
		}
	}
}

// bigFileRepo makes the bare repository bare with one commit of docs/a.md
// and the big file docs/big.bin, and returns the commit's id and the big
// file's blob id. git fast-import writes the big blob straight into a pack
// (fastimport.unpackLimit=0; zlib level 1: the content is one line
// repeated, 525 KB packed; streamed, not held: --big-file-threshold, a
// third of the CPU), and the server's git sends it from there as it is: no
// work tree, no loose object and no pack made per fetch deflate the 96 MB
// again (each took seconds).
func bigFileRepo(t *testing.T, bare string) (commit, bigID string) {
	t.Helper()
	gittest.MustGit(t, filepath.Dir(filepath.Dir(bare)), "init", "-q", "--bare", bare)
	head := "commit refs/heads/master\n" +
		"committer " + gittest.Name + " <" + gittest.Email + "> 1767225600 +0000\n" +
		"data 4\nbig\n" +
		"M 100644 inline docs/a.md\ndata 4\n# A\n" +
		"M 100644 inline docs/big.bin\ndata " + strconv.Itoa(bigFileSize) + "\n"
	cmd := exec.Command("git", "-c", "pack.compression=1", "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet", "--big-file-threshold=1m")
	cmd.Dir = bare
	cmd.Env = gittest.Env(filepath.Join(t.TempDir(), "home"))
	cmd.Stdin = io.MultiReader(strings.NewReader(head), bigReader(), strings.NewReader("\n"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	commit = gittest.MustGit(t, bare, "rev-parse", "master")
	bigID = gittest.MustGit(t, bare, "rev-parse", "master:docs/big.bin")
	return commit, bigID
}

type bigFileReport struct {
	HWM     int64 // bytes
	Skipped []string
	BigID   string
}

// TestBigFileChild is TestBigFileOverHTTPBoundedMemory's child process:
// one Materialize, then a report of the process's peak RSS.
func TestBigFileChild(t *testing.T) {
	arg := os.Getenv("CTX_BIGFILE_CHILD")
	if arg == "" {
		t.Skip("run by TestBigFileOverHTTPBoundedMemory")
	}
	a := strings.Split(arg, "\n")
	limit, _ := strconv.ParseInt(a[2], 10, 64)
	e := New(Options{CacheDir: a[4], MaxFileSize: limit})
	res, err := e.Materialize(context.Background(), FetchRequest{URL: a[0], Commit: a[1], Path: "docs"}, a[3])
	if err != nil {
		t.Fatal(err)
	}
	rep := bigFileReport{}
	for _, s := range res.Skipped {
		rep.Skipped = append(rep.Skipped, s.Path+": "+s.Reason)
	}
	for _, f := range res.Files {
		if f.Path == "big.bin" {
			rep.BigID = f.BlobID
		}
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			rep.HWM = kb << 10
		}
	}
	b, _ := json.Marshal(rep)
	os.Stdout.WriteString("BIGFILE " + string(b) + "\n")
}
