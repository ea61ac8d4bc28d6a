//go:build linux

package indexer

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAccumulatedAB times searches with the candidate shortcuts
// (accumulatedCandidates, allTermCandidates) against bleve's own search
// (the exhaustive reader), alternating the two
// readers query by query on the .context folder CTX_TEST_AB_DIR names (say,
// bench/scale's ten times corpus), and checks that both give the same
// hits. It logs each query length's CPU time a search (getrusage) and
// wall p50/p95 for both: bench/scale's queries (one to four words) and
// runs of their words of 5 to 12.
func TestAccumulatedAB(t *testing.T) {
	dir := os.Getenv("CTX_TEST_AB_DIR")
	if dir == "" {
		t.Skip("CTX_TEST_AB_DIR not set")
	}
	rounds := 2
	short := []string{
		"borrow checker lifetimes", "pod scheduling", "tar extract archive", "ownership move semantics",
		"graduation criteria beta", "git rebase interactive", "trait objects dynamic dispatch", "kubelet eviction",
		"docker run port", "error handling Result", "feature gate", "find files by name", "closures capture",
		"api server admission webhook", "ssh key", "smart pointers Box", "sidecar containers", "curl post json",
		"cargo workspace", "storage volume snapshot", "grep recursive", "pattern matching enums", "node lease heartbeat",
		"compress gzip", "unsafe raw pointers",
	}
	all := strings.Fields(strings.Join(short, " "))
	groups := [][]string{short}
	for w := 5; w <= 12; w++ {
		qs := make([]string, 25)
		for i := range qs {
			ws := make([]string, w)
			for j := range ws {
				ws[j] = all[(i*5+j)%len(all)]
			}
			qs[i] = strings.Join(ws, " ")
		}
		groups = append(groups, qs)
	}
	ctx := context.Background()
	runtime.LockOSThread() // threadCPU is this goroutine's
	defer runtime.UnlockOSThread()
	readers := [2]*Reader{}
	for i := range readers {
		r, err := OpenReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		r.exhaustive = i == 0
		if _, err := r.Search(ctx, Query{Text: "warm up"}); err != nil {
			t.Fatal(err)
		}
		// Held open: while the other reader searches, this one would
		// close its index after readerIdleClose and open it cold again.
		_, release, err := r.acquire()
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		readers[i] = r
	}
	for g, qs := range groups {
		var cpu, tcpu [2]time.Duration
		var walls [2][]time.Duration
		for round := range rounds {
			for i, q := range qs {
				query := Query{Text: q, Limit: 10, BestPerDocument: i%2 == 1}
				var hits [2][]Hit
				for k := range 2 {
					side := (k + i + round) % 2 // alternate which goes first
					c0, t0, w0 := processCPU(), threadCPU(), time.Now()
					h, err := readers[side].Search(ctx, query)
					if err != nil {
						t.Fatal(err)
					}
					walls[side] = append(walls[side], time.Since(w0))
					cpu[side] += processCPU() - c0
					tcpu[side] += threadCPU() - t0
					hits[side] = h
				}
				if !reflect.DeepEqual(hits[0], hits[1]) {
					t.Errorf("%q: hits differ:\n%+v\n%+v", q, hits[0], hits[1])
				}
			}
		}
		name := "1-4 words"
		if g > 0 {
			name = fmt.Sprintf("%d words", g+4)
		}
		n := time.Duration(len(walls[0]))
		t.Logf("%-10s before: CPU %6.2f ms a search (its thread %6.2f), p50 %6.2f p95 %6.2f | after: CPU %6.2f ms (%6.2f), p50 %6.2f p95 %6.2f (load %s)", name,
			ms(cpu[0]/n), ms(tcpu[0]/n), ms(quantile(walls[0], 0.5)), ms(quantile(walls[0], 0.95)),
			ms(cpu[1]/n), ms(tcpu[1]/n), ms(quantile(walls[1], 0.5)), ms(quantile(walls[1], 0.95)), loadAverage())
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func quantile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPU is the calling thread's user and system time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return "?"
	}
	return f[0]
}
