package gitengine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// PlainOpen opens the git repository of a user's folder with go-git, as
// git.PlainOpenWithOptions does (EnableDotGitCommonDir, so that a linked
// worktree reads its common refs and objects; detect: the nearest .git
// upwards from dir, as DetectDotGit), and also a repository that go-git
// refuses only for extensions.worktreeConfig (go-git issue 1943; `git
// sparse-checkout` and `git config --worktree` set it): that extension
// says a worktree's own config.worktree adds to the config, and what ctx
// reads through go-git (refs, objects, the history) does not depend on
// it. Any other extension go-git does not know is refused, with what to
// do. It is the one way ctx opens a user's repository with go-git; the
// index readers (tracked.go) read the index file itself.
func PlainOpen(dir string, detect bool) (*git.Repository, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: detect, EnableDotGitCommonDir: true})
	if !errors.Is(err, git.ErrUnknownExtension) && !errors.Is(err, git.ErrUnsupportedExtensionRepositoryFormatVersion) {
		return repo, err
	}
	root, gitDir, ferr := repoDirs(dir, detect)
	if ferr != nil {
		return nil, ferr
	}
	common, ferr := commonDir(gitDir)
	if ferr != nil {
		return nil, ferr
	}
	var commonFS billy.Filesystem
	if common != gitDir {
		commonFS = osfs.New(common)
	}
	st := &tolerant{Storage: filesystem.NewStorage(dotgit.NewRepositoryFilesystem(osfs.New(gitDir), commonFS), cache.NewObjectLRUDefault())}
	cfg, cerr := st.Config()
	if cerr != nil {
		return nil, cerr
	}
	if left := unknownExtensions(cfg); len(left) > 0 {
		return nil, fmt.Errorf("%w (ctx reads a repository with extensions.worktreeConfig, not with %s: a repository git made with a newer format; a fresh `git clone` of it without that option may do)", err, strings.Join(left, ", "))
	}
	var wt billy.Filesystem
	if root != "" {
		wt = osfs.New(root)
	}
	return git.Open(st, wt)
}

// repoDirs is the work tree (root, "" for a bare repository) and the git
// directory of the repository at dir: with detect, the nearest work tree
// upwards (workTreeGitDir); without, dir's own .git, or dir itself when
// it is a bare repository.
func repoDirs(dir string, detect bool) (root, gitDir string, err error) {
	if detect {
		root, gitDir, err = workTreeGitDir(dir)
		if err == nil && root == "" {
			err = git.ErrRepositoryNotExists
		}
		return root, gitDir, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	gitDir, err = DotGit(abs)
	switch {
	case err == nil:
		return abs, gitDir, nil
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(filepath.Join(abs, "HEAD")); err != nil {
			return "", "", fmt.Errorf("%s: %w", safetext.Clip(abs, 0), git.ErrRepositoryNotExists)
		}
		return "", abs, nil // bare
	}
	return "", "", err
}

// tolerant is a repository's storage whose config leaves out
// extensions.worktreeConfig, the one extension go-git refuses that does
// not change what ctx reads (PlainOpen).
type tolerant struct{ *filesystem.Storage }

func (t *tolerant) Config() (*config.Config, error) {
	cfg, err := t.Storage.Config()
	if err != nil || cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return cfg, err
	}
	cfg.Raw.Section("extensions").RemoveOption("worktreeConfig")
	return cfg, nil
}

// unknownExtensions lists the extensions left in cfg (those PlainOpen
// does not take out).
func unknownExtensions(cfg *config.Config) []string {
	if cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return nil
	}
	var out []string
	for _, o := range cfg.Raw.Section("extensions").Options {
		if k := strings.ToLower(o.Key); k != "noop" && k != "noop-v1" {
			out = append(out, safetext.Clip(o.Key, 0))
		}
	}
	return out
}
