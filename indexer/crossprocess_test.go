package indexer

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHelperSyncProcess is not a test: TestCrossProcess runs the test
// binary with CTX_INDEXER_HELPER set, and this function then plays a
// second `ctx install`: it edits a file and syncs, several times, with a
// full rebuild every third round.
func TestHelperSyncProcess(t *testing.T) {
	dir := os.Getenv("CTX_INDEXER_HELPER")
	if dir == "" {
		t.Skip("helper process only")
	}
	rounds, _ := strconv.Atoi(os.Getenv("CTX_INDEXER_ROUNDS"))
	tag := os.Getenv("CTX_INDEXER_TAG")
	for i := 0; i < rounds; i++ {
		body := fmt.Sprintf("# Moving\n\nRound %d marker%s%d here.\n", i, tag, i)
		p := filepath.Join(dir, "packages", "ops", "moving-"+tag+".md")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if _, err := Sync(context.Background(), dir, testPackages(), Options{Rebuild: i%3 == 2}); err != nil {
			fmt.Fprintln(os.Stderr, "helper sync:", err)
			os.Exit(1)
		}
	}
}

// TestCrossProcess runs two writer processes (each editing and syncing in a
// loop, with rebuilds) against one index while this process keeps
// searching: no call may fail or hang, the writers serialise on the write
// lock, and the reader sees the final state on its next query.
func TestCrossProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	const rounds = 6
	var cmds []*exec.Cmd
	done := make(chan error, 2)
	for _, tag := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSyncProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CTX_INDEXER_HELPER="+dir, "CTX_INDEXER_ROUNDS="+strconv.Itoa(rounds), "CTX_INDEXER_TAG="+tag)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		go func() { done <- cmd.Wait() }()
	}
	finished := 0
	t.Cleanup(func() {
		// On a failure, stop the writers before the temporary directory
		// is removed under them.
		for _, c := range cmds {
			c.Process.Kill()
		}
		for ; finished < len(cmds); finished++ {
			<-done
		}
	})
	r, _ := OpenReader(dir)
	defer r.Close()
	searches := 0
	for finished < len(cmds) {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("writer process: %v", err)
			}
			finished++
		default:
			if _, err := r.Search(ctx, Query{Text: "pager rollout"}); err != nil {
				t.Fatalf("search while writers run: %v", err)
			}
			if _, err := r.Freshness(testPackages()); err != nil {
				t.Fatalf("freshness while writers run: %v", err)
			}
			searches++
		}
	}
	t.Logf("%d searches ran while two writers synced %d times each", searches, rounds)
	for _, tag := range []string{"a", "b"} {
		last := fmt.Sprintf("marker%s%d", tag, rounds-1)
		hits, err := r.Search(ctx, Query{Text: last})
		if err != nil || len(hits) != 1 {
			t.Errorf("after the writers: %s gives %v %v, want 1 hit", last, hits, err)
		}
		old := fmt.Sprintf("marker%s%d", tag, 0)
		if hits, _ := r.Search(ctx, Query{Text: old}); len(hits) != 0 {
			t.Errorf("stale content %s still found", old)
		}
	}
	if f, err := r.Freshness(testPackages()); err != nil || !f.Fresh {
		t.Errorf("freshness after the writers: %+v %v", f, err)
	}
	// Directories kept because a reader was opening them go with the next
	// Sync; only the live one (and its lock file) remains.
	r.Close()
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := readJSON(filepath.Join(dir, "index", metaFile), &m); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "index"))
	for _, e := range ents {
		n := e.Name()
		if strings.Contains(n, "bleve-") && n != m.Bleve && n != "."+m.Bleve+".lock" {
			t.Errorf("index/%s left behind (live: %s)", n, m.Bleve)
		}
	}
}
