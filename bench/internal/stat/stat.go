// Package stat holds the measures the bench tools share: a quantile of
// timings, and the process's (or the calling thread's) CPU time and minor
// page faults from getrusage.
package stat

import (
	"slices"
	"syscall"
	"time"
)

// Quantile is the p-quantile of ds (0 for none); ds is left as it is.
func Quantile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// Who is whose CPU time CPU reads: the process's or the calling OS
// thread's.
type Who int

const (
	Process Who = syscall.RUSAGE_SELF
	// Thread is Linux's RUSAGE_THREAD (the syscall package does not name
	// it): lock the goroutine to its thread around what it measures.
	Thread Who = 1
)

// CPU is who's user and system CPU time so far.
func CPU(who Who) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(int(who), &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// MinorFaults is the process's minor page faults so far.
func MinorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
