package workspace

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestListReadsOnlyTheStateHead: list tells a package behind the lock by
// the commit its state records, the state file's second key
// (project.ReadStateHead), without decoding the per-file records: for a
// package of 20,000 files it allocates a small part of the state file
// (status21; it decoded the whole file, ~1.6 MB for start21's three
// packages, 1,380 of a list's 3,117 page faults). A package behind is
// still told so.
func TestListReadsOnlyTheStateHead(t *testing.T) {
	w, st := installedTeam(t)
	for i := range 20000 {
		st.Files = append(st.Files, fileState{Path: fmt.Sprintf("zz/d%03d/file%05d.md", i/100, i), Blob: "0123456789012345678901234567890123456789", Size: 100, Mode: 0o644, MTime: 1, CTime: 1, Ino: uint64(i)})
	}
	data, err := encodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.statePath("team"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	least := leastAllocated(func() {
		infos, err := w.List()
		if err != nil || len(infos) != 1 || !infos[0].Installed || infos[0].InstalledCommit != "" {
			t.Fatalf("list: %+v, %v; want team installed, not behind", infos, err)
		}
	})
	t.Logf("List allocated %d bytes (state %d bytes)", least, len(data))
	if limit := uint64(len(data)) / 8; least > limit {
		t.Errorf("List allocated %d bytes for a state of %d bytes, more than %d: it decodes the state's records", least, len(data), limit)
	}
	// Behind: the state records another commit than the lock's.
	st.Rev = "1111111111111111111111111111111111111111"
	if data, err = encodeState(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.statePath("team"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	infos, err := w.List()
	if err != nil || len(infos) != 1 || infos[0].InstalledCommit != st.Rev {
		t.Fatalf("list: %+v, %v; want team behind (installed %s)", infos, err, st.Rev)
	}
}

// leastAllocated is the fewest bytes fn allocates in five runs: the
// process's count, which other tests running meanwhile can only raise.
func leastAllocated(fn func()) uint64 {
	var least uint64
	for i := range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	return least
}

// installedTeam is a project with the fixture's "team" folder installed
// as the package team, and its state.
func installedTeam(t *testing.T) (*Workspace, *pkgState) {
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team", Alias: "team"}}, AddOptions{}))
	st, err := w.readState("team")
	if err != nil {
		t.Fatal(err)
	}
	return w, st
}
