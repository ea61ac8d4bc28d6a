package kinds_test

import (
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/internal/jsonfile/jsonfiletest"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/kinds"
)

const (
	c1 = "0123456789abcdef0123456789abcdef01234567"
	t1 = "89abcdef0123456789abcdef0123456789abcdef"
	h1 = "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
)

// TestLockPins: a version 2 lock's entries checked by their kinds' rules
// (lockfile.Parse given CheckPin, as project.ParseLock gives it): the kind
// must be a locked one (dir never is), a git entry pins a commit and a
// tree, an https entry a content hash and no tree; each problem at its
// line:column.
func TestLockPins(t *testing.T) {
	t.Parallel()
	data := `{
  "version": 2,
  "packages": {
    "a": {"kind": "svn", "source": "x", "rev": "r1", "hash": "` + h1 + `"},
    "g": {"kind": "git", "source": "x", "rev": "abc", "hash": "` + h1 + `"},
    "w": {"kind": "https", "source": "https://x/y", "rev": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `"},
    "old": {"kind": "git", "source": "x", "commit": "` + c1 + `", "rev": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `"}
  }
}`
	_, err := lockfile.Parse("context.lock", []byte(data), kinds.CheckPin)
	jsonfiletest.WantInOrder(t, err, []string{
		`context.lock:4:11: packages[a].kind: "svn" must be one of: git, https`,
		`context.lock:5:5: packages[g].tree: "" must be a git tree id`,
		`context.lock:5:41: packages[g].rev: "abc" must be a git commit: 40 lower-case hexadecimal digits`,
		`context.lock:6:53: packages[w].rev: "` + c1 + `" must be sha256: and 64 lower-case hexadecimal digits`,
		`context.lock:6:104: packages[w].tree: an https entry has no tree`,
		`packages[old]: unknown field "commit"`,
	})

	dir := `{"version": 2, "packages": {"d": {"kind": "dir", "source": "docs", "rev": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `"}}}`
	_, err = lockfile.Parse("context.lock", []byte(dir), kinds.CheckPin)
	jsonfiletest.WantInOrder(t, err, []string{`packages[d].kind: "dir" must be one of: git, https`})

	ok := `{"version": 2, "packages": {"g": {"kind": "git", "source": "x", "rev": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `"}}}`
	if _, err := lockfile.Parse("context.lock", []byte(ok), kinds.CheckPin); err != nil {
		t.Fatal(err)
	}
}

// TestTable: every kind is found by its name, "" is git, and the names are
// the help texts' order.
func TestTable(t *testing.T) {
	t.Parallel()
	if got, want := kinds.Names(), []string{"git", "dir", "https"}; !slices.Equal(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	if got, want := kinds.LockedNames(), []string{"git", "https"}; !slices.Equal(got, want) {
		t.Fatalf("LockedNames = %v, want %v", got, want)
	}
	for _, n := range append(kinds.Names(), "") {
		k, ok := kinds.Of(n)
		if !ok || (n != "" && k.Name() != n) || (n == "" && k.Name() != source.DefaultKind) {
			t.Fatalf("Of(%q) = %v, %v", n, k, ok)
		}
	}
	if _, ok := kinds.Of("svn"); ok {
		t.Fatal(`Of("svn") found a kind`)
	}
	if errs := kinds.CheckSpec(source.Spec{Alias: "a", Kind: "svn", Source: "x", Ref: "main"}, "packages[0]."); len(errs) != 1 || errs[0].Field != "packages[0].kind" {
		t.Fatalf("CheckSpec of an unknown kind = %v, want only its kind's error", errs)
	}
}

// TestFetchers: a kind is Locked exactly when it has a Fetcher (the
// workspace fetches it into packages/<alias> and the lock pins it); a live
// kind has none, and the lock refuses it.
func TestFetchers(t *testing.T) {
	t.Parallel()
	for _, n := range kinds.Names() {
		k, _ := kinds.Of(n)
		if _, ok := k.(source.Fetcher); ok != k.Locked() {
			t.Errorf("kind %s: Locked() = %v, but has a Fetcher: %v", n, k.Locked(), ok)
		}
	}
}
