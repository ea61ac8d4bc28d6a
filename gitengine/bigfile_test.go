package gitengine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
// Not parallel: it measures a child's peak RSS, which must not depend on
// what the other tests load onto the machine at the same time.
func TestBigFileOverHTTPBoundedMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc/self/status (VmHWM)")
	}
	needGit(t)
	tmp := t.TempDir()
	src, root := filepath.Join(tmp, "src"), filepath.Join(tmp, "root")
	big := bytes.Repeat([]byte("a line of a big file that compresses well\n"), bigFileSize/42+1)[:bigFileSize]
	commit := gittest.NewRepo(t, src, map[string]string{"docs/a.md": "# A\n"})
	if err := os.WriteFile(filepath.Join(src, "docs", "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, src, "add", "-A")
	gittest.MustGit(t, src, "commit", "-q", "--amend", "-m", "big")
	commit = gittest.MustGit(t, src, "rev-parse", "HEAD")
	bigID := gittest.MustGit(t, src, "rev-parse", "HEAD:docs/big.bin")
	gittest.MustGit(t, tmp, "clone", "-q", "--bare", src, filepath.Join(root, "repo.git"))
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
			cmd.Env = append(os.Environ(), "CTX_BIGFILE_CHILD="+strings.Join([]string{
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
			got, err := os.ReadFile(filepath.Join(dest, "big.bin"))
			if err != nil || !bytes.Equal(got, big) {
				t.Errorf("big.bin's content differs (%v)", err)
			}
		})
	}
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
