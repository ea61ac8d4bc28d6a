package main

import "github.com/ctx-dev/ctx/internal/gcstart"

// startHeap is the memory limit a process of ctx runs under until its
// first garbage collection (gcstart.StartHeap).
const startHeap = gcstart.StartHeap

// firstGC is closed once the collector is back to Go's defaults.
var firstGC = gcstart.FirstGC()

// deferFirstGC turns the collector off until the runtime's memory reaches
// startHeap, and back to Go's defaults after that first collection
// (gcstart.Defer: the owner, which a search's early walk calls before
// main).
func deferFirstGC() { gcstart.Defer() }

// userSetGC reports whether the user set the process's collector (GOGC
// or GOMEMLIMIT), which ctx then leaves alone (deferFirstGC, withBuildGC).
func userSetGC() bool { return gcstart.UserSet() }

// sentinel holds a pointer so that it is not a tiny allocation (which
// may share its block with live data and never be cleaned up).
type sentinel struct{ _ *int }
