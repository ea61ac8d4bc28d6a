package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ownInitBytes bounds what the module's own packages allocate while Go
// initialises them, together, before main runs (issue 31: every command
// pays it, `ctx version` included). Their package-level work is lazy
// (lazyre, sync.OnceValue): at go1.26 they allocate about 12.8 KB in 230
// allocations, 0.2 ms. One eager regexp allocates 2 to 20 KB, a map
// literal of a few hundred entries tens of KB: the bound lets the small
// tables through and stops the start-up cost from growing unseen. The
// dependencies' initialisation (bleve's scorch alone 1.09 MB) is theirs
// and not counted (bench/README.md, "Start-up, round 10").
const ownInitBytes = 32 << 10

// TestOwnInitsStayLazy runs ctx version with GODEBUG=inittrace=1 (Go
// prints each package's initialisation: its clock, bytes and allocations)
// and checks that the module's packages allocate at most ownInitBytes.
// The bytes are counted, not timed: the same build allocates the same.
// cmd/ctx itself is left out: in this test binary its initialisation
// holds the tests' own package-level variables.
func TestOwnInitsStayLazy(t *testing.T) {
	inits, trace := versionInitTrace(t)
	const module = "github.com/ctx-dev/ctx/"
	var own []initCost
	total := 0
	for _, in := range inits {
		if !strings.HasPrefix(in.pkg, module) || in.pkg == module+"cmd/ctx" {
			continue
		}
		own = append(own, in)
		total += in.bytes
	}
	if len(own) < 5 {
		t.Fatalf("the init trace names %d of the module's packages, want the indexer's and the others' (GODEBUG=inittrace=1's format changed?):\n%s", len(own), trace)
	}
	if total > ownInitBytes {
		slices.SortFunc(own, func(a, b initCost) int { return b.bytes - a.bytes })
		var b strings.Builder
		for _, in := range own {
			fmt.Fprintf(&b, "\n  %s: %d bytes, %d allocs", in.pkg, in.bytes, in.allocs)
		}
		t.Errorf("the module's packages allocate %d bytes at start, more than %d: every command pays it before main; build the value on first use (lazyre.New, sync.OnceValue):%s", total, ownInitBytes, b.String())
	}
}

// initCost is one line of GODEBUG=inittrace=1:
// "init PKG @T ms, C ms clock, B bytes, A allocs".
type initCost struct {
	pkg           string
	bytes, allocs int
}

func parseInitTrace(s string) ([]initCost, error) {
	var out []initCost
	for line := range strings.Lines(s) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "init ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		// PKG @T ms, C ms clock, B bytes, A allocs
		if len(f) != 10 || f[7] != "bytes," || f[9] != "allocs" {
			return nil, fmt.Errorf("init trace line %q: not \"init PKG @T ms, C ms clock, B bytes, A allocs\"", line)
		}
		b, err1 := strconv.Atoi(f[6])
		a, err2 := strconv.Atoi(f[8])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("init trace line %q: bytes or allocs not a number", line)
		}
		out = append(out, initCost{pkg: f[0], bytes: b, allocs: a})
	}
	return out, nil
}

// TestEarlyWalkInitsBeforeBleve: Go initialises indexer/prewalk, whose
// init starts a search's early walk, before bleve's scorch (the largest
// init, 2.4 ms): the walk's stats then run on the second core while the
// rest of the packages are initialised (bench/README.md, cli23). An
// import that made prewalk wait for bleve would keep every search as
// slow as before without failing anything else.
func TestEarlyWalkInitsBeforeBleve(t *testing.T) {
	inits, trace := versionInitTrace(t)
	at := func(pkg string) int {
		i := slices.IndexFunc(inits, func(c initCost) bool { return c.pkg == pkg })
		if i < 0 {
			t.Fatalf("%s not in the init trace:\n%s", pkg, trace)
		}
		return i
	}
	if pre, scorch := at("github.com/ctx-dev/ctx/indexer/prewalk"), at("github.com/blevesearch/bleve/v2/index/scorch"); pre > scorch {
		t.Errorf("indexer/prewalk is initialised %dth, after bleve's scorch (%dth): its walk no longer runs beside the inits", pre+1, scorch+1)
	}
}

// versionInitTrace runs ctx version with GODEBUG=inittrace=1: the
// packages' initialisations, in order, and the trace as printed.
func versionInitTrace(t *testing.T) ([]initCost, string) {
	t.Helper()
	cmd := exec.Command(ctxExe, "version")
	cmd.Env = append(slices.Clone(testEnv), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ctx version: %v\n%s", err, stderr.String())
	}
	inits, err := parseInitTrace(stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	return inits, stderr.String()
}
