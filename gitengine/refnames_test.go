package gitengine

import (
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
)

// refNames is the one expansion of a ref's short name, in git's rev-parse
// order (a tag before a branch); a full name stands for itself.
func TestRefNames(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string][]string{
		"v1":              {"refs/tags/v1", "refs/heads/v1"},
		"feature/x":       {"refs/tags/feature/x", "refs/heads/feature/x"},
		"refs/heads/main": {"refs/heads/main"},
		"refs/tags/v1":    {"refs/tags/v1"},
	} {
		if got := refNames(ref); !slices.Equal(got, want) {
			t.Errorf("refNames(%q) = %v, want %v", ref, got, want)
		}
	}
	for name, want := range map[string]string{"refs/heads/main": "main", "refs/tags/v1": "v1", "refs/pull/1/head": "", "HEAD": ""} {
		if got, ok := shortRefName(name); got != want || ok != (want != "") {
			t.Errorf("shortRefName(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

// A deepened fetch starts from the tip the ref resolves to (Resolve: the
// tag when a tag and a branch share the name), not from the branch's.
func TestRefHashTagFirst(t *testing.T) {
	t.Parallel()
	tag, branch := plumbing.NewHash("1111111111111111111111111111111111111111"), plumbing.NewHash("2222222222222222222222222222222222222222")
	adv := packp.NewAdvRefs()
	adv.References["refs/tags/v1"] = tag
	adv.References["refs/heads/v1"] = branch
	adv.References["refs/heads/main"] = branch
	c := &conn{adv: adv}
	for ref, want := range map[string]plumbing.Hash{"v1": tag, "refs/heads/v1": branch, "main": branch, "refs/heads/main": branch} {
		if got, ok := c.refHash(ref); !ok || got != want {
			t.Errorf("refHash(%q) = %s, %v; want %s", ref, got, ok, want)
		}
	}
	if _, ok := c.refHash("nope"); ok {
		t.Error("refHash(nope) found a tip")
	}
}
