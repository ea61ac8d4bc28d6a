package gitengine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestReadAtRevision: a file of the project's own history at a revision
// (HEAD~1, a tag) or a date (the last commit before that day), from a
// sub-folder of the work tree; a file not there and a folder outside any
// repository are told apart.
func TestReadAtRevision(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	git := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(t.TempDir()), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	sub := filepath.Join(dir, "proj", ".context")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(sub, "context.lock")
	git("2026-01-01T00:00:00Z", "init", "-q", "-b", "main")
	for i, v := range []struct{ date, content string }{{"2026-01-10T12:00:00Z", "one"}, {"2026-02-10T12:00:00Z", "two"}, {"2026-03-10T12:00:00Z", "three"}} {
		if err := os.WriteFile(lock, []byte(v.content), 0o644); err != nil {
			t.Fatal(err)
		}
		git(v.date, "add", "-A")
		git(v.date, "commit", "-q", "-m", v.content)
		if i == 0 {
			git(v.date, "tag", "v1")
		}
	}
	for rev, want := range map[string]string{"HEAD": "three", "HEAD~1": "two", "v1": "one", "2026-03-01": "two", "2026-03-11": "three", "2026-01-11": "one"} {
		got, err := ReadAtRevision(filepath.Join(dir, "proj"), lock, rev)
		if err != nil || string(got.Data) != want {
			t.Errorf("%s: %v %v, want %s", rev, got, err, want)
		}
	}
	if _, err := ReadAtRevision(dir, lock, "2026-01-05"); err == nil {
		t.Error("a date before the first commit found one")
	}
	// review20 of cli20: a revision that names nothing is the user's input
	// (ErrBadRevision: changes --since exits 2), a date before the first
	// commit as much as a name or a parent that is not there.
	for _, rev := range []string{"2026-01-05", "no-such", "HEAD~3"} {
		if _, err := ReadAtRevision(dir, lock, rev); !errors.Is(err, ErrBadRevision) {
			t.Errorf("%s: %v; want ErrBadRevision", rev, err)
		}
	}
	if _, err := ReadAtRevision(dir, filepath.Join(sub, "nope"), "HEAD"); !errors.Is(err, ErrNotAtRevision) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ReadAtRevision(dir, lock, "no-such"); err == nil {
		t.Error("a revision that is not there was found")
	}
	// Past the first commit (audit16 finding 2): not go-git's bare "EOF",
	// but how long the history is, and its first commit.
	first := func() string {
		cmd := exec.Command("git", "rev-list", "--max-parents=0", "HEAD")
		cmd.Dir = dir
		b, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(b[:12])
	}()
	for _, rev := range []string{"HEAD~3", "HEAD~9", "main~5", "HEAD^2", "v1~1"} {
		_, err := ReadAtRevision(dir, lock, rev)
		if err == nil || strings.Contains(err.Error(), "EOF") || !strings.Contains(err.Error(), first) {
			t.Errorf("%s: %v; want no EOF, and the first commit %s named", rev, err, first)
		}
	}
	if _, err := ReadAtRevision(dir, lock, "HEAD~3"); err == nil || !strings.Contains(err.Error(), "3 commits") {
		t.Errorf("HEAD~3 of 3 commits: %v; want the 3 commits named", err)
	}
	if _, err := ReadAtRevision(dir, lock, "v1~1"); err == nil || !strings.Contains(err.Error(), "1 commit ") {
		t.Errorf("v1~1: %v; want v1's 1 commit named", err)
	}
	// A shallow clone (CI's --depth 1) lacks HEAD~1: it says so, and how
	// to fetch it, not go-git's "object not found".
	shallow := filepath.Join(t.TempDir(), "shallow")
	git("2026-04-01T00:00:00Z", "clone", "-q", "--depth", "1", "file://"+dir, shallow)
	slock := filepath.Join(shallow, "proj", ".context", "context.lock")
	if _, err := ReadAtRevision(shallow, slock, "HEAD"); err != nil {
		t.Errorf("shallow HEAD: %v", err)
	}
	if _, err := ReadAtRevision(shallow, slock, "HEAD~1"); err == nil || !strings.Contains(err.Error(), "shallow") || !strings.Contains(err.Error(), "--unshallow") {
		t.Errorf("shallow HEAD~1: %v; want the shallow clone named, with --unshallow", err)
	}
	// What a shallow clone lacks is not a bad revision: the history is
	// there, not fetched.
	for _, rev := range []string{"HEAD~1", "2026-01-05"} {
		if _, err := ReadAtRevision(shallow, slock, rev); err == nil || errors.Is(err, ErrBadRevision) {
			t.Errorf("shallow %s: %v; want an error that is not ErrBadRevision", rev, err)
		}
	}
	out := t.TempDir()
	if _, err := ReadAtRevision(out, filepath.Join(out, "x"), "HEAD"); !errors.Is(err, ErrNoRepository) {
		t.Errorf("outside a repository: %v", err)
	}
}

// TestReadAtRevisionCompoundLine (left17, 1): a compound revision that
// goes past the first commit, or past a shallow clone's end, is described
// by the line it walks (the first-parent line of HEAD^2 for HEAD^2~9), not
// by the first-parent line of HEAD.
func TestReadAtRevisionCompoundLine(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = gittest.Env(t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	lock := filepath.Join(dir, "context.lock")
	commit := func(content string) {
		t.Helper()
		if err := os.WriteFile(lock, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", content)
	}
	// main: c1 c2 c3, then a merge of side (c1 s1..s5): HEAD's
	// first-parent line has 4 commits, HEAD^2's 6.
	git("init", "-q", "-b", "main")
	commit("c1")
	git("checkout", "-q", "-b", "side")
	for _, s := range []string{"s1", "s2", "s3", "s4", "s5"} {
		commit(s)
	}
	git("checkout", "-q", "main")
	commit("c2")
	commit("c3")
	git("merge", "-q", "--no-ff", "-s", "ours", "-m", "merge", "side")
	c1 := git("rev-parse", "--short=12", "HEAD~3")
	_, err := ReadAtRevision(dir, lock, "HEAD^2~9")
	if err == nil || !strings.Contains(err.Error(), `the history of "HEAD^2" has 6 commits`) || !strings.Contains(err.Error(), c1) {
		t.Errorf("HEAD^2~9: %v; want HEAD^2's line of 6 commits, the first %s", err, c1)
	}
	_, err = ReadAtRevision(dir, lock, "HEAD~1^2")
	if err == nil || !strings.Contains(err.Error(), `"HEAD~1" (`) || !strings.Contains(err.Error(), "has 1 parent") {
		t.Errorf("HEAD~1^2: %v; want HEAD~1's one parent named", err)
	}
	// Cloned at depth 3: M, c3, s5, c2, s4; c2 and s4 are shallow.
	shallow := filepath.Join(t.TempDir(), "shallow")
	git("clone", "-q", "--depth", "3", "file://"+dir, shallow)
	s4 := git("rev-parse", "--short=12", "side~1")
	_, err = ReadAtRevision(shallow, filepath.Join(shallow, "context.lock"), "HEAD^2~5")
	if err == nil || !strings.Contains(err.Error(), `the first-parent line of "HEAD^2" ends at `+s4) || !strings.Contains(err.Error(), "--unshallow") {
		t.Errorf("shallow HEAD^2~5: %v; want HEAD^2's line, cut at %s", err, s4)
	}
	c2 := git("rev-parse", "--short=12", "main~2")
	_, err = ReadAtRevision(shallow, filepath.Join(shallow, "context.lock"), "HEAD~5")
	if err == nil || !strings.Contains(err.Error(), `the first-parent line of "HEAD" ends at `+c2) {
		t.Errorf("shallow HEAD~5: %v; want HEAD's line, cut at %s", err, c2)
	}
}

// TestReadAtRevisionNoCommits (cli21, rv-cli21): a repository with no
// commit at all says so (ErrNoCommits, a bad revision); one whose HEAD is
// an orphan branch (git checkout --orphan) has commits: a branch or tag
// that names one is read, and HEAD is no "no commits yet".
func TestReadAtRevisionNoCommits(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = gittest.Env(t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	lock := filepath.Join(dir, "context.lock")
	git("init", "-q", "-b", "main")
	if _, err := ReadAtRevision(dir, lock, "HEAD"); !errors.Is(err, ErrNoCommits) || !errors.Is(err, ErrBadRevision) {
		t.Errorf("no commits: %v; want ErrNoCommits, a bad revision", err)
	}
	if err := os.WriteFile(lock, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	git("tag", "v1")
	git("checkout", "-q", "--orphan", "pages")
	for _, rev := range []string{"main", "v1"} {
		got, err := ReadAtRevision(dir, lock, rev)
		if err != nil || string(got.Data) != "one" {
			t.Errorf("orphan branch, %s: %v %v; want main's lock", rev, got, err)
		}
	}
	if _, err := ReadAtRevision(dir, lock, "HEAD"); err == nil || errors.Is(err, ErrNoCommits) {
		t.Errorf("orphan branch, HEAD: %v; want an error that is not ErrNoCommits (main has commits)", err)
	}
}
