package main

import (
	"bytes"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// peakHeap keeps the heap profile written when the live heap (as the last
// GC left it) was the largest seen: the profile of what the build holds at
// its peak, not at its end.
type peakHeap struct {
	done    chan struct{}
	stopped chan struct{}
	max     uint64
	profile []byte
}

// watchPeakHeap samples the live heap every 20 ms until stop.
func watchPeakHeap() *peakHeap {
	p := &peakHeap{done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(p.stopped)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > p.max {
				var b bytes.Buffer
				if pprof.Lookup("heap").WriteTo(&b, 0) == nil {
					p.max, p.profile = v, b.Bytes()
				}
			}
		}
	}()
	return p
}

// stop ends the sampling and returns the largest live heap seen.
func (p *peakHeap) stop() uint64 {
	close(p.done)
	<-p.stopped
	return p.max
}
