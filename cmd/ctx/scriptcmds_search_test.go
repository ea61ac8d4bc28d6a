package main

import (
	"encoding/json"
	"os"
	"sync"

	"github.com/gofrs/flock"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx-dev/ctx/project"
)

// heldLocks holds each script's project lock taken by project-lock.
var heldLocks sync.Map // *testscript.TestScript → *flock.Flock

// searchScriptCmds are script commands for reading the index:
//
//	project-lock hold PROJECT
//	    take PROJECT's project lock (.context/.lock, "pid 4242" inside)
//	    as another ctx working there would, until project-lock release
//	    or the end of the script.
//	project-lock release
//	    let it go.
//	json-stdout
//	    fail unless the last command's stdout is one JSON value and
//	    nothing else.
func searchScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"project-lock": cmdProjectLock,
		"json-stdout":  cmdJSONStdout,
	}
}

func cmdProjectLock(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "project-lock")
	switch {
	case len(args) == 2 && args[0] == "hold":
		if _, ok := heldLocks.Load(ts); ok {
			ts.Fatalf("project-lock: already held in this script")
		}
		proj, err := project.At(ts.MkAbs(args[1]))
		ts.Check(err)
		p := proj.Path(project.ProjectLock)
		ts.Check(os.WriteFile(p, []byte("pid 4242\n"), 0o644))
		fl := flock.New(p)
		ok, err := fl.TryLock()
		ts.Check(err)
		if !ok {
			ts.Fatalf("project-lock: %s is held already", p)
		}
		heldLocks.Store(ts, fl)
		ts.Defer(func() {
			if v, ok := heldLocks.LoadAndDelete(ts); ok {
				v.(*flock.Flock).Close()
			}
		})
	case len(args) == 1 && args[0] == "release":
		v, ok := heldLocks.LoadAndDelete(ts)
		if !ok {
			ts.Fatalf("project-lock release: not held")
		}
		ts.Check(v.(*flock.Flock).Close())
	default:
		ts.Fatalf("usage: project-lock hold PROJECT | project-lock release")
	}
}

func cmdJSONStdout(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "json-stdout")
	if len(args) != 0 {
		ts.Fatalf("usage: json-stdout")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not one JSON value: %v", err)
	}
}
