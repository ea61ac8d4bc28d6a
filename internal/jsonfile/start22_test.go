package jsonfile

import (
	"strings"
	"testing"
)

// TestDecodeValidFileReadsItOnce: a file with nothing to report is not
// read again for positions (Positions builds a line index and walks the
// whole file, with no problem to place). Every command decodes the
// manifest, the local file and the lock (start22). It counts the walks
// (positionWalks), not the bytes allocated: a byte bound moved with the
// Go version and GOARCH (on GOARCH=386, or with GOEXPERIMENT=jsonv2, the
// second reading stayed under it: 686 KB and 534 KB; rv-start22). Not
// parallel: the count is the package's.
func TestDecodeValidFileReadsItOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n  \"name\": \"x\",\n  \"list\": [\n")
	for i := range 2000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("    \"item\"")
	}
	b.WriteString("\n  ]\n}\n")
	o := Options{Validator: NewValidator()}
	walks := func(data string) int64 {
		t.Helper()
		before := positionWalks.Load()
		var d testDoc
		err := Decode("f.json", []byte(data), &d, o)
		if strings.Contains(data, `"item"`) && (err != nil || len(d.List) != 2000) {
			t.Fatalf("Decode: %v, %d items", err, len(d.List))
		}
		return positionWalks.Load() - before
	}
	if n := walks(b.String()); n != 0 {
		t.Errorf("Decode of a valid 2,000-line file read it %d more times for positions, want none", n)
	}
	// The count is live: a problem of the rules needs its place, read once.
	if n := walks(`{"name": "far too long a name"}`); n != 1 {
		t.Errorf("Decode of a file breaking a rule read it %d times for positions, want 1", n)
	}
}

// TestPositionsOfNothingReadsNothing: Positions with no path to place
// returns at once (rv-start22): its other callers ask with none on every
// valid file (registry's localRepoProblems on each registry read over the
// network with no local repository, project.packageLines for a manifest
// with no package), and each read the whole file for nothing.
func TestPositionsOfNothingReadsNothing(t *testing.T) {
	data := []byte("{\"contexts\": [" + strings.Repeat(`{"name": "a", "repo": "https://x/y"},`, 500) + "{}]}")
	before := positionWalks.Load()
	if got := Positions(data, nil); len(got) != 0 {
		t.Errorf("Positions of no path: %v", got)
	}
	if n := positionWalks.Load() - before; n != 0 {
		t.Errorf("Positions of no path read the file %d times, want none", n)
	}
	if got := Positions(data, [][]string{{"contexts", "1"}}); len(got) != 1 || got[0].Line != 1 || positionWalks.Load()-before != 1 {
		t.Errorf("Positions of one path: %v, %d readings", got, positionWalks.Load()-before)
	}
}
