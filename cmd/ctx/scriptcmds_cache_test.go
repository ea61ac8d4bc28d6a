package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// gcLoops holds each script's running gc loop.
var gcLoops sync.Map // *testscript.TestScript → *gcLoop

// cacheScriptCmds are script commands for the cache:
//
//	gc-loop start [ARGS...]
//	    run `ctx cache gc ARGS...` as a real process, again and again in
//	    the background, until gc-loop stop. Runs alternate between ARGS
//	    and ARGS with --keep 0 (drop everything not in use).
//	gen-files DIR N SIZE
//	    write N markdown files of about SIZE bytes each into DIR
//	    (f000.md, f001.md, ...), so that writing a package takes a while.
//	gc-loop stop MIN
//	    stop the loop once it has run at least MIN times (it goes on until
//	    then, so the count does not depend on how fast the machine is), wait
//	    for its last run, and fail unless every run exited 0 (done) or 3 (a
//	    remote in use was skipped); prints how many runs skipped a remote.
func cacheScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"gc-loop":   cmdGCLoop,
		"gen-files": cmdGenFiles,
	}
}

type gcLoop struct {
	stop    chan int // receives MIN (stop after that many runs); closed: stop now
	done    chan struct{}
	runs    int
	skipped int
	failed  []string
}

func cmdGCLoop(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "gc-loop")
	if len(args) < 1 {
		ts.Fatalf("usage: gc-loop start [ARGS...] | gc-loop stop MIN")
	}
	switch args[0] {
	case "start":
		if _, ok := gcLoops.Load(ts); ok {
			ts.Fatalf("gc-loop: a loop is already running in this script")
		}
		bin, err := lookPathIn("ctx", ts.Getenv("PATH"))
		ts.Check(err)
		env := os.Environ()
		for _, k := range []string{"PATH", "WORK", "TMPDIR", "HOME", "XDG_CONFIG_HOME", "CTX_CACHE", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT", "GOGC"} {
			env = append(env, k+"="+ts.Getenv(k))
		}
		l := &gcLoop{stop: make(chan int), done: make(chan struct{})}
		extra := args[1:]
		go func() {
			defer close(l.done)
			want := -1 // runs to reach before stopping; -1 until stop is asked
			for i := 0; ; i++ {
				if want < 0 {
					select {
					case n, ok := <-l.stop:
						want = n
						if !ok {
							want = 0
						}
					default:
					}
				}
				if want >= 0 && l.runs >= want {
					return
				}
				a := append([]string{"cache", "gc"}, extra...)
				if i%2 == 1 {
					a = append(a, "--keep", "0")
				}
				cmd := exec.Command(bin, a...)
				cmd.Dir = ts.MkAbs(".")
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				l.runs++
				var ee *exec.ExitError
				switch {
				case err == nil:
				case errors.As(err, &ee) && ee.ExitCode() == ExitPartial:
					l.skipped++
				default:
					l.failed = append(l.failed, fmt.Sprintf("ctx %s: %v\n%s", strings.Join(a, " "), err, out))
				}
			}
		}()
		gcLoops.Store(ts, l)
		ts.Defer(func() {
			if v, ok := gcLoops.LoadAndDelete(ts); ok {
				l := v.(*gcLoop)
				close(l.stop)
				<-l.done
			}
		})
	case "stop":
		if len(args) != 2 {
			ts.Fatalf("usage: gc-loop stop MIN")
		}
		var min int
		_, err := fmt.Sscan(args[1], &min)
		ts.Check(err)
		v, ok := gcLoops.LoadAndDelete(ts)
		if !ok {
			ts.Fatalf("gc-loop stop: no loop is running")
		}
		l := v.(*gcLoop)
		l.stop <- min
		<-l.done
		fmt.Fprintf(ts.Stdout(), "gc ran %d times, %d skipped a remote in use\n", l.runs, l.skipped)
		if len(l.failed) > 0 {
			ts.Fatalf("%d gc runs failed; the first:\n%s", len(l.failed), l.failed[0])
		}
	default:
		ts.Fatalf("gc-loop: unknown %q: start or stop", args[0])
	}
}

func cmdGenFiles(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "gen-files")
	if len(args) != 3 {
		ts.Fatalf("usage: gen-files DIR N SIZE")
	}
	var n, size int
	_, err := fmt.Sscan(args[1], &n)
	ts.Check(err)
	_, err = fmt.Sscan(args[2], &size)
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# File %d\n\n", i)
		for b.Len() < size {
			fmt.Fprintf(&b, "Line %d of file %d in %s.\n", b.Len(), i, args[0])
		}
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.md", i)), []byte(b.String()), 0o644))
	}
}
