package fileid

import (
	"runtime"
	"sync/atomic"
)

// Lstated is one file's Lstat through a Batch: its stamp, whether it is a
// regular file, and the error (Tree.Lstat's three results).
type Lstated struct {
	St      Stamp
	Regular bool
	Err     error
}

// Batch is Tree.Lstat of many files under one root, shared by the
// goroutines that call Run: each claims runs of the files no other has
// claimed and stats them through a Tree of its own, so a batch started
// early (the freshness check's early walk, which starts while the process
// is still initialising its packages: indexer/prewalk) is finished by
// whoever comes to it, with no file stat'ed twice; Wait gives the results
// once every run is done. Each result is the file's stat data as it was
// when its run stat'ed it: after the batch was made.
type Batch struct {
	root string
	rels []string
	out  []Lstated
	next atomic.Int64 // the next run to claim
	left atomic.Int64 // files not yet stat'ed
	done chan struct{}
	stop atomic.Bool // Stop: no more runs claimed
}

// batchRun is how many files a goroutine claims at a time.
const batchRun = 64

// NewBatch is a Batch of the files rels (as Tree.Lstat takes them) under
// root. Nothing is stat'ed until Run or Wait.
func NewBatch(root string, rels []string) *Batch {
	b := &Batch{root: root, rels: rels, out: make([]Lstated, len(rels)), done: make(chan struct{})}
	b.left.Store(int64(len(rels)))
	if len(rels) == 0 {
		close(b.done)
	}
	return b
}

// Root is the folder b's files are under, as NewBatch was given it.
func (b *Batch) Root() string { return b.root }

// Run stats the files of b no goroutine has claimed, a run at a time,
// until none is left (or b is stopped), and returns (the runs others claimed may still be
// in progress: Wait).
func (b *Batch) Run() {
	var tr *Tree
	for !b.stop.Load() {
		k := int(b.next.Add(1)) - 1
		lo := k * batchRun
		if lo >= len(b.rels) {
			break
		}
		if tr == nil {
			tr = NewTree(b.root)
		}
		hi := min(lo+batchRun, len(b.rels))
		for i := lo; i < hi; i++ {
			o := &b.out[i]
			o.St, o.Regular, o.Err = tr.Lstat(b.rels[i])
		}
		if b.left.Add(int64(lo-hi)) == 0 {
			close(b.done)
		}
		runtime.Gosched()
	}
	if tr != nil {
		tr.Close()
	}
}

// Stop makes b claim no more runs: a batch whose results nobody will take
// (Wait would then never return).
func (b *Batch) Stop() { b.stop.Store(true) }

// Wait runs b (Run) with helpers more goroutines beside the caller, then
// waits for every run to end, and gives the results, in rels' order.
func (b *Batch) Wait(helpers int) []Lstated {
	for range helpers {
		go b.Run()
	}
	b.Run()
	<-b.done
	return b.out
}
