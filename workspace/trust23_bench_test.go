package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/treehash"
)

// BenchmarkFollowedLock (trust23): the one look ctx mcp takes, per state
// and lock entry, at a package behind its lock whose files a pull brought
// (one file rewritten): the files the state proves are not read. It
// reports the CPU (user+sys, getrusage) of a look.
func BenchmarkFollowedLock(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			in := &InstalledFiles{rev: "1111111111111111111111111111111111111111", dir: dir, files: map[string]fileState{}}
			for i := 0; i < n; i++ {
				rel := fmt.Sprintf("page%d.md", i)
				data := []byte(fmt.Sprintf("# Page %d\n\nHow to deploy service %d.\n", i, i))
				p := filepath.Join(dir, rel)
				if err := os.WriteFile(p, data, 0o644); err != nil {
					b.Fatal(err)
				}
				fi, err := os.Lstat(p)
				if err != nil {
					b.Fatal(err)
				}
				f := recordFile(rel, gitengine.HashBlob(data), fi)
				f.Sum = treehash.SumOf(data)
				in.files[rel] = f
			}
			in.at = time.Now().Add(2 * time.Second).UnixNano() // the state written after the files
			if err := os.WriteFile(filepath.Join(dir, "page0.md"), []byte("# Page 0\n\nHow to release.\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			hash, err := treehash.HashDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			var before, after syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if in.FollowedLock("2222222222222222222222222222222222222222", hash) == nil {
					b.Fatal("not followed")
				}
			}
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := time.Duration(syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime) + syscall.TimevalToNsec(after.Stime) - syscall.TimevalToNsec(before.Stime))
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
