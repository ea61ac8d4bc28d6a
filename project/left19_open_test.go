package project

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// left19 item 3: unsharedRef took a repository it could not open as
// shared. A repository inside the project that ctx cannot read (here an
// extension neither go-git nor ctx knows) is now refused, saying why and
// what to do: ctx cannot tell whether its ref is shared.
func TestCommittedGitSourceUnreadableIsNotShared(t *testing.T) {
	root, _ := trackedRepo(t)
	gittest.MustGit(t, root, "config", "core.repositoryformatversion", "1")
	gittest.MustGit(t, root, "config", "extensions.frobnicate", "true")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.CheckSource(&Manifest{}, PackageSpec{Alias: "own", Kind: KindGit, Source: ".", Path: "docs", Ref: "main"})
	if !errors.Is(err, ErrUntracked) {
		t.Fatalf("an unreadable repository: %v; want ErrUntracked", err)
	}
	for _, want := range []string{"cannot open", "frobnicate", "ctx install --allow-outside own"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// review19b: a committed git source naming a tracked folder that is no
// repository was refused as "a repository on this machine that ctx cannot
// open (repository does not exist) ... fix the repository": it is no
// repository. Still refused (fail closed), the message says what it is.
func TestCommittedGitSourceNotARepository(t *testing.T) {
	root, _ := trackedRepo(t)
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.CheckSource(&Manifest{}, PackageSpec{Alias: "own", Kind: KindGit, Source: "./docs", Ref: "main"})
	if !errors.Is(err, ErrUntracked) {
		t.Fatalf("a folder that is no repository: %v; want ErrUntracked", err)
	}
	for _, bad := range []string{"is a repository", "cannot open"} {
		if strings.Contains(err.Error(), bad) {
			t.Errorf("%q says %q of a folder that is no repository", err, bad)
		}
	}
	if !strings.Contains(err.Error(), "is not a git repository") {
		t.Errorf("%q does not say it is not a git repository", err)
	}
}
