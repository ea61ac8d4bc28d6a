// Package prof starts the bench tools' CPU profiles (their -cpuprofile
// flags).
package prof

import (
	"log"
	"os"
	"runtime/pprof"
)

// CPU writes a CPU profile to path from now until the returned stop is
// called, which also closes the file; with path "" it profiles nothing
// and stop does nothing. An error ends the process, as the tools' other
// flag errors do.
func CPU(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
