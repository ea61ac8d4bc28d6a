//go:build unix

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkAudience1000 is the audience check of an install over 1,000
// documents of about 2 KB (a third public, a third for the project, a third
// for others, so 333 are deleted): reading each one's rules and deleting
// the withheld ones from the stage. Goal (issue 12): ≤ 50 ms.
func BenchmarkAudience1000(b *testing.B) {
	proj := b.TempDir()
	w, err := Init(proj, InitOptions{Project: "bench-service"}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	stage := w.stageDir("bench")
	body := strings.Repeat("Some documentation text about the service. ", 45)
	docs := map[string]string{}
	for i := range 1000 {
		fm := ""
		switch i % 3 {
		case 1:
			fm = "---\ntitle: Doc\nctx_include: [\"*-service\", other]\nctx_exclude: [temp-*]\n---\n"
		case 2:
			fm = "---\ntitle: Doc\ncodex_sync_include: [\"shared/team-*\", web-app]\n---\n"
		}
		docs[fmt.Sprintf("section%d/doc%d.md", i%20, i)] = fm + fmt.Sprintf("# Doc %d\n\n%s\n", i, body)
	}
	write := func(only func(string) bool) {
		for p, c := range docs {
			if only != nil && !only(p) {
				continue
			}
			full := filepath.Join(stage, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	write(nil)
	// CPU time (user + system) is reported beside wall time: on a shared
	// machine the wall time mostly measures the other processes.
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		before := cpuTime()
		res, err := w.applyAudience("bench", stageTree{stage: stage}, "bench-service")
		cpu += cpuTime() - before
		if err != nil || len(res.withheld) != 333 {
			b.Fatalf("withheld %d, %v", len(res.withheld), err)
		}
		b.StopTimer()
		gone := map[string]bool{}
		for _, p := range res.withheld {
			gone[p] = true
		}
		write(func(p string) bool { return gone[p] })
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
