package project

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// TestRed19ManifestLinesLinear (red19 finding 2): reading a manifest
// looked for each package's line by reading the file again from its start
// (packageLines, one jsonfile.Find per package): a valid committed
// manifest of 4,000 packages (375 KB) cost 24 s of CPU in every command,
// `git pull`'s hook included. Four times the packages must cost about
// four times the work (bytes allocated: a count, not a time).
func TestRed19ManifestLinesLinear(t *testing.T) {
	manifest := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"packages": [`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n  {\"alias\": \"p%d\", \"source\": \"https://example.com/r%d.git\", \"path\": \"docs\"}", i, i)
		}
		b.WriteString("\n]}\n")
		return b.Bytes()
	}
	cost := func(n int) uint64 {
		data := manifest(n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := ParseManifest("context.config.json", data)
		if err != nil {
			t.Fatal(err)
		}
		lines := packageLines(data, m.Packages) // as ReadManifest does
		runtime.ReadMemStats(&after)
		for _, i := range []int{0, n / 2, n - 1} {
			if alias := fmt.Sprintf("p%d", i); lines[alias] != i+2 {
				t.Errorf("%d packages: %s's line is %d, want %d", n, alias, lines[alias], i+2)
			}
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, big := cost(400), cost(1600)
	if ratio := float64(big) / float64(small); ratio > 8 {
		t.Errorf("1,600 packages allocated %.1f× what 400 did (%d KB, %d KB): the work grows with the square of the packages", ratio, big>>10, small>>10)
	}
}
