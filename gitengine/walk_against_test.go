package gitengine

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	memst "github.com/go-git/go-git/v5/storage/memory"
)

func againstTree(t *testing.T, st *memst.Storage, ents ...object.TreeEntry) *object.Tree {
	t.Helper()
	tr := &object.Tree{Entries: ents}
	o := st.NewEncodedObject()
	if err := tr.Encode(o); err != nil {
		t.Fatal(err)
	}
	h, err := st.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := object.GetTree(st, h)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func againstPaths(es []entry) map[string]plumbing.Hash {
	m := map[string]plumbing.Hash{}
	for _, e := range es {
		m[e.path] = e.hash
	}
	return m
}

// A tree with a duplicate name (the first one kept, the second skipped by
// walk) listed against a tree holding the first entry only: the diffed
// listings must compare as the whole listings do (no difference).
func TestWalkAgainstDuplicateName(t *testing.T) {
	st := memst.NewStorage()
	x := plumbing.NewHash("1111111111111111111111111111111111111111")
	y := plumbing.NewHash("2222222222222222222222222222222222222222")
	oldT := againstTree(t, st,
		object.TreeEntry{Name: "a.md", Mode: filemode.Regular, Hash: x},
		object.TreeEntry{Name: "a.md", Mode: filemode.Regular, Hash: y})
	newT := againstTree(t, st, object.TreeEntry{Name: "a.md", Mode: filemode.Regular, Hash: x})

	_, oldAll, _, _ := walkAll(st, oldT, nil)
	_, newAll, _, _ := walkAll(st, newT, nil)
	_, oldD, _, err := walkAll(st, oldT, &diffBase{tree: newT.Hash})
	if err != nil {
		t.Fatal(err)
	}
	_, newD, _, err := walkAll(st, newT, &diffBase{tree: oldT.Hash})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("whole: old %v new %v", againstPaths(oldAll), againstPaths(newAll))
	t.Logf("diffed: old %v new %v", againstPaths(oldD), againstPaths(newD))
	// whole listings: same path, same blob: no change. The diffed ones
	// must not tell a path apart that the whole ones do not.
	o, n := againstPaths(oldD), againstPaths(newD)
	for p, h := range n {
		if oh, ok := o[p]; !ok || oh != h {
			if againstPaths(oldAll)[p] == againstPaths(newAll)[p] {
				t.Errorf("%s: diffed listings differ (old %v, new %v) where the whole ones are equal", p, oh, h)
			}
		}
	}
}

// The other tree is in the store but one of its folders is not: this
// side is listed whole (used false, so the caller reads the other side
// whole too), not an error.
func TestWalkAgainstMissingFolder(t *testing.T) {
	st := memst.NewStorage()
	x := plumbing.NewHash("1111111111111111111111111111111111111111")
	sub := againstTree(t, st, object.TreeEntry{Name: "a.md", Mode: filemode.Regular, Hash: x})
	mine := againstTree(t, st, object.TreeEntry{Name: "d", Mode: filemode.Dir, Hash: sub.Hash})
	other := againstTree(t, st, object.TreeEntry{Name: "d", Mode: filemode.Dir, Hash: plumbing.NewHash("3333333333333333333333333333333333333333")})
	if _, _, _, err := walkAll(st, mine, nil); err != nil {
		t.Fatal(err)
	}
	base := &diffBase{tree: other.Hash}
	_, got, _, err := walkAll(st, mine, base)
	if err != nil {
		t.Fatalf("listed against a tree whose folder the store lacks: %v (whole listing works)", err)
	}
	if base.used || len(got) != 1 || got[0].path != "d/a.md" {
		t.Fatalf("used %v, listed %v: want this side whole (d/a.md), used false", base.used, againstPaths(got))
	}
}
