package testtmp

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitingParallel is how many parallel tests a package whose tests mostly
// wait runs at once per core when -test.parallel is not given (testing's
// default is one per core, GOMAXPROCS). cmd/ctx's scripts wait on git and
// ctx processes, on servers, on the rate floor's and the idle timeout's
// windows (net_slow, net_stall) and on webfetch's retry backoff
// (https_llms_pages, https_limits): at one per core a core sits idle
// while both running tests wait (bench/README.md, issue 30 round 10).
const WaitingParallel = 2

// SetWaitingParallel sets -test.parallel to WaitingParallel × GOMAXPROCS
// unless the command line gave -test.parallel (go test -parallel N): what
// whoever runs the tests asks for wins. Call it from TestMain, before
// m.Run. It parses the command line (testing.M.Run does not parse again).
func SetWaitingParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	setParallel(flag.CommandLine, WaitingParallel*runtime.GOMAXPROCS(0))
}

// setParallel sets fs's test.parallel to n unless it was set; it reports
// whether it did.
func setParallel(fs *flag.FlagSet, n int) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			given = true
		}
	})
	if given || fs.Lookup("test.parallel") == nil {
		return false
	}
	return fs.Set("test.parallel", strconv.Itoa(n)) == nil
}
