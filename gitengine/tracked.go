package gitengine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// TrackStatus is what the git repository that holds a file says of it
// (FileStatus).
type TrackStatus struct {
	InRepository bool // the file is inside a git work tree
	Tracked      bool // the repository's index has an entry for it: git tracks it, whatever .gitignore says
	Ignored      bool // a .gitignore from the work tree's root down to the file's folder, or .git/info/exclude, ignores it
}

// FileStatus says whether git tracks file (a path on this machine, inside
// dir's git work tree, found upwards from dir as ReadAtRevision finds it)
// and whether the repository's ignore files ignore it. Not inside a git
// work tree (or a bare repository) is a zero TrackStatus and no error.
// It reads the repository's index (go-git decodes it whole: a few
// milliseconds for 20,000 files, bench/README.md "fixD17") and, for
// Ignored, only the .gitignore files on the file's own path and
// .git/info/exclude (not the user's global excludes file). An index that
// cannot be read is an error: the caller cannot tell.
func FileStatus(dir, file string) (TrackStatus, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return TrackStatus{}, nil
		}
		return TrackStatus{}, fmt.Errorf("open the git repository of %s: %w", safetext.Clip(dir, 0), err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return TrackStatus{}, nil // a bare repository: no work tree holds the file
	}
	root := wt.Filesystem.Root()
	rel, err := relIn(root, file)
	if err != nil {
		return TrackStatus{}, err
	}
	st := TrackStatus{InRepository: true}
	idx, err := repo.Storer.Index()
	if err != nil {
		return st, fmt.Errorf("read the git index of %s: %w", safetext.Clip(root, 0), err)
	}
	st.Tracked = tracks(idx, rel)
	st.Ignored = ignored(root, rel)
	return st, nil
}

// tracks reports whether idx has an entry for rel (slash-separated),
// at any merge stage.
func tracks(idx *index.Index, rel string) bool {
	for _, e := range idx.Entries {
		if e.Name == rel {
			return true
		}
	}
	return false
}

// ignored reports whether the ignore files on rel's path (root's
// .gitignore, each folder's down to rel's, and .git/info/exclude) ignore
// rel, with go-git's gitignore matcher.
func ignored(root, rel string) bool {
	parts := strings.Split(rel, "/")
	ps := readIgnore(filepath.Join(root, ".git", "info", "exclude"), nil)
	for i := 0; i < len(parts); i++ {
		ps = append(ps, readIgnore(filepath.Join(root, filepath.FromSlash(strings.Join(append(parts[:i:i], ".gitignore"), "/"))), parts[:i])...)
	}
	return gitignore.NewMatcher(ps).Match(parts, false)
}

// readIgnore reads the patterns of one ignore file (none when it cannot be
// read), for a file in the folder domain.
func readIgnore(name string, domain []string) []gitignore.Pattern {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(l, domain))
	}
	return ps
}
