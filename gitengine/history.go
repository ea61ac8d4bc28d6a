package gitengine

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MaxHistoryFile is the largest file ReadAtRevision returns.
const MaxHistoryFile = 64 << 20

// ErrNoRepository: the folder is not inside a git work tree.
var ErrNoRepository = errors.New("not inside a git repository")

// ErrNoCommits: the repository has no commit yet (HEAD names a branch
// with none), so no revision names anything.
var ErrNoCommits = errors.New("the repository has no commits yet")

// ErrNotAtRevision: the file does not exist at the revision.
var ErrNotAtRevision = errors.New("no such file at that revision")

// ErrBadRevision: the revision names nothing in the repository (no such
// branch, tag or commit; a parent past the first commit; a date before
// it, the whole line walked): the user's
// input, which the command line reports with exit code 2.
var ErrBadRevision = errors.New("no such revision")

// badRevisionError is an error about the revision given, which
// errors.Is finds as ErrBadRevision; its message is err's.
type badRevisionError struct{ err error }

func (e *badRevisionError) Error() string        { return e.err.Error() }
func (e *badRevisionError) Unwrap() error        { return e.err }
func (e *badRevisionError) Is(target error) bool { return target == ErrBadRevision }

// AtRevision is a file of a project's own history (ReadAtRevision).
type AtRevision struct {
	Commit string    // the commit the revision named
	When   time.Time // its committer date
	Data   []byte    // the file's content
}

// isDate reports whether rev is a date, YYYY-MM-DD.
func isDate(rev string) bool {
	_, err := time.Parse("2006-01-02", rev)
	return err == nil && len(rev) == len("2006-01-02")
}

// ReadAtRevision reads file (a path on this machine, inside dir's git work
// tree) as it was at rev in that repository's history, with go-git: rev is
// what `git rev-parse` takes that go-git resolves (HEAD, HEAD~2, a branch,
// a tag, a commit id, ORIG_HEAD) or a date, YYYY-MM-DD, meaning the newest
// commit on HEAD's first-parent line made before that day (UTC), as `git
// rev-list -1 --first-parent --before` finds it. The repository is the one
// dir is in (its .git found upwards). Errors wrap ErrNoRepository (no
// repository there) or ErrNotAtRevision (the commit has no such file).
func ReadAtRevision(dir, file, rev string) (*AtRevision, error) {
	repo, err := PlainOpen(dir, true)
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("%s: %w", safetext.Clip(dir, 0), ErrNoRepository)
		}
		return nil, fmt.Errorf("open the git repository of %s: %w", safetext.Clip(dir, 0), err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a bare repository has no work tree)", safetext.Clip(dir, 0), ErrNoRepository)
	}
	rel, err := relIn(wt.Filesystem.Root(), file)
	if err != nil {
		return nil, err
	}
	if noCommits(repo) {
		return nil, &badRevisionError{fmt.Errorf("revision %s: %w", safetext.Quote(rev), ErrNoCommits)}
	}
	var c *object.Commit
	if isDate(rev) {
		c, err = beforeDate(repo, rev)
	} else {
		var h *plumbing.Hash
		if h, err = repo.ResolveRevision(plumbing.Revision(rev)); err == nil {
			c, err = repo.CommitObject(*h)
		}
	}
	if errors.Is(err, io.EOF) {
		// go-git's ResolveRevision ends a walk to a parent that is not
		// there (HEAD~N past the first commit, HEAD^2 of no merge) in
		// io.EOF: say how far the history goes instead.
		return nil, &badRevisionError{fmt.Errorf("revision %s names a parent that does not exist: %s (name a commit, branch, tag, HEAD~N or a date YYYY-MM-DD)", safetext.Quote(rev), missingParent(repo, rev))}
	}
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// A shallow clone (CI's default) lacks the commits before its
		// cut: say so, where the line asked for ends, and how to fetch
		// the rest.
		if sh, serr := repo.Storer.Shallow(); serr == nil && len(sh) > 0 {
			cut := "the commits before " + sh[0].String()[:12] + " were not fetched"
			if base, c, ok := walkedLine(repo, rev); ok {
				cut = fmt.Sprintf("the first-parent line of %s ends at %s, whose parents were not fetched", safetext.Quote(base), lineEnd(repo, c).Hash.String()[:12])
			}
			return nil, fmt.Errorf("revision %s: the clone is shallow: %s (run `git fetch --deepen=N` or `git fetch --unshallow`, then again)", safetext.Quote(rev), cut)
		}
	}
	if err != nil {
		err = fmt.Errorf("revision %s: %w (name a commit, branch, tag, HEAD~N or a date YYYY-MM-DD)", safetext.Quote(rev), err)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			err = &badRevisionError{err}
		}
		return nil, err
	}
	f, err := c.File(rel)
	if err != nil {
		if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, fmt.Errorf("%s at %s (%s): %w", safetext.Quote(rel), safetext.Quote(rev), c.Hash.String()[:12], ErrNotAtRevision)
		}
		return nil, fmt.Errorf("%s at %s: %w", safetext.Quote(rel), safetext.Quote(rev), err)
	}
	if f.Size > MaxHistoryFile {
		return nil, fmt.Errorf("%s at %s is %d bytes, over the %d this reads", safetext.Quote(rel), safetext.Quote(rev), f.Size, MaxHistoryFile)
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, MaxHistoryFile+1))
	if err != nil {
		return nil, err
	}
	return &AtRevision{Commit: c.Hash.String(), When: c.Committer.When, Data: data}, nil
}

// noCommits reports whether repo has no commit at all: HEAD names a
// branch with none, and no other branch or tag names one. An orphan
// branch (git checkout --orphan) has no commit of its own, but main and
// the tags still name theirs (rv-cli21).
func noCommits(repo *git.Repository) bool {
	if _, err := repo.Head(); !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return false
	}
	refs, err := repo.References()
	if err != nil {
		return false
	}
	defer refs.Close()
	errFound := errors.New("a reference names a commit")
	return refs.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference {
			return errFound
		}
		return nil
	}) == nil
}

// maxHistoryCount bounds the commits historyLength counts.
const maxHistoryCount = 1000

// walkedLine splits rev into the longest start that names a commit (cut
// before a ~ or ^) and that commit: the line rev walks when it goes past
// the history there is (HEAD^2 for HEAD^2~9). ok is false when not even
// rev's base (what comes before its first ~ or ^) does.
func walkedLine(repo *git.Repository, rev string) (base string, c *object.Commit, ok bool) {
	for i := len(rev) - 1; i > 0; i-- {
		if rev[i] != '~' && rev[i] != '^' {
			continue
		}
		h, err := repo.ResolveRevision(plumbing.Revision(rev[:i]))
		if err != nil {
			continue
		}
		if c, err := repo.CommitObject(*h); err == nil {
			return rev[:i], c, true
		}
	}
	return "", nil, false
}

// lineEnd is the last commit of c's first-parent line that this
// repository holds: its first commit, or where a shallow clone cut it.
func lineEnd(repo *git.Repository, c *object.Commit) *object.Commit {
	for n := 0; c.NumParents() > 0 && n < maxHistoryCount; n++ {
		p, err := c.Parent(0)
		if err != nil {
			break
		}
		c = p
	}
	return c
}

// missingParent says why rev names a parent that does not exist, of the
// line rev walks (walkedLine): a ^N past its commit's parents names them;
// otherwise how long that line is (historyLength).
func missingParent(repo *git.Repository, rev string) string {
	base, c, ok := walkedLine(repo, rev)
	if !ok {
		base = rev
		if i := strings.IndexAny(rev, "~^"); i > 0 {
			base = rev[:i]
		}
		return historyLength(repo, base)
	}
	if step := rev[len(base):]; step[0] == '^' && len(step) > 1 && step[1] >= '2' && step[1] <= '9' && c.NumParents() > 0 {
		parents := "parents"
		if c.NumParents() == 1 {
			parents = "parent"
		}
		return fmt.Sprintf("%s (%s) has %d %s; %s", safetext.Quote(base), c.Hash.String()[:12], c.NumParents(), parents, historyLength(repo, base))
	}
	return historyLength(repo, base)
}

// historyLength says how many commits the first-parent line of base has,
// and its first commit: "the history of HEAD has only 1 commit
// (71fe90275b00)".
func historyLength(repo *git.Repository, base string) string {
	h, err := repo.ResolveRevision(plumbing.Revision(base))
	if err != nil {
		return fmt.Sprintf("%s: %v", safetext.Quote(base), err)
	}
	c, err := repo.CommitObject(*h)
	n := 1
	for err == nil && c.NumParents() > 0 && n <= maxHistoryCount {
		c, err = c.Parent(0)
		n++
	}
	switch {
	case err != nil:
		return fmt.Sprintf("the history of %s: %v", safetext.Quote(base), err)
	case n > maxHistoryCount:
		return fmt.Sprintf("the history of %s has over %d commits on its first-parent line", safetext.Quote(base), maxHistoryCount)
	case n == 1:
		return fmt.Sprintf("the history of %s has only 1 commit (%s)", safetext.Quote(base), c.Hash.String()[:12])
	}
	return fmt.Sprintf("the history of %s has %d commits on its first-parent line, the first %s", safetext.Quote(base), n, c.Hash.String()[:12])
}

// relIn is file's slash path inside root (both resolved through links).
func relIn(root, file string) (string, error) {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	d, err := filepath.EvalSymlinks(filepath.Dir(file))
	if err != nil {
		return "", err
	}
	rel, ok := naming.RelIn(r, filepath.Join(d, filepath.Base(file)))
	if !ok {
		return "", fmt.Errorf("%s is outside the git work tree %s", safetext.Clip(file, 0), safetext.Clip(root, 0))
	}
	return filepath.ToSlash(rel), nil
}

// beforeDate is the newest commit on HEAD's first-parent line whose
// committer date is before day (YYYY-MM-DD, UTC midnight).
func beforeDate(repo *git.Repository, day string) (*object.Commit, error) {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		return nil, err
	}
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	c, err := repo.CommitObject(head.Hash())
	for err == nil {
		if c.Committer.When.Before(t) {
			return c, nil
		}
		if c.NumParents() == 0 {
			// The whole line was walked: the date names nothing.
			return nil, &badRevisionError{fmt.Errorf("no commit before %s", day)}
		}
		c, err = c.Parent(0)
	}
	return nil, err
}
