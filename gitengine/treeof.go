package gitengine

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// TreeOf returns the id of the tree at req.Path in req.Commit (the commit's
// root tree when Path is empty), bringing the commit and its trees into the
// cache when it lacks them, never a blob: what a package's folder holds at
// a commit, to compare with the tree a lock entry pins (a commit that did
// not touch the folder leaves its tree id as it was).
func (e *Engine) TreeOf(ctx context.Context, req FetchRequest) (string, error) {
	commitID := strings.ToLower(strings.TrimSpace(req.Commit))
	if len(commitID) != 40 || !isHex(commitID) {
		return "", newError(KindOther, req.URL, "fetch", fmt.Errorf("commit %s is not a 40-character commit id", safetext.Quote(req.Commit)), "resolve the ref first")
	}
	commit := plumbing.NewHash(commitID)
	sub, ok := cleanSubPath(req.Path)
	if !ok {
		return "", newError(KindPathNotFound, req.URL, "fetch", fmt.Errorf("path %s is not a valid sub-path", safetext.Quote(req.Path)), "use a relative path without \"..\" or \".git\"")
	}
	r, err := parseRemote(req.URL)
	if err != nil {
		return "", err
	}
	if r.local != "" {
		st, _, err := e.openLocalRead(r)
		if err != nil {
			return "", err
		}
		return subTree(st, r.raw, commit, sub)
	}
	st, unlock, err := e.openCache(ctx, r, true)
	if err != nil {
		return "", err
	}
	defer unlock()
	defer st.Close()
	if st.HasEncodedObject(commit) != nil {
		c, err := e.connect(ctx, r, "fetch")
		if err != nil {
			return "", err
		}
		defer c.close()
		if err := e.fetchCommit(ctx, c, st, commit, req.Ref, false); err != nil {
			return "", classifyFetch(c, commit, err)
		}
	}
	return subTree(verified(st), r.raw, commit, sub)
}

// subTree walks commit's tree down to sub and returns the id of the tree
// there, reading trees only.
func subTree(st storer.EncodedObjectStorer, rawURL string, commit plumbing.Hash, sub string) (string, error) {
	co, err := object.GetCommit(st, commit)
	if err != nil {
		return "", commitGone(rawURL, commit, err, "")
	}
	id := co.TreeHash
	if sub == "" {
		return id.String(), nil
	}
	for _, name := range strings.Split(sub, "/") {
		tree, err := object.GetTree(st, id)
		if err != nil {
			return "", newError(KindOther, rawURL, "fetch", fmt.Errorf("read a tree of commit %s: %w", commit, err), "")
		}
		found := false
		for _, te := range tree.Entries {
			if te.Name == name {
				if te.Mode != filemode.Dir {
					return "", newError(KindPathNotFound, rawURL, "fetch", fmt.Errorf("path %s at commit %s is not a folder", safetext.Quote(sub), commit), "a package is a folder: give the folder that holds the file")
				}
				id, found = te.Hash, true
				break
			}
		}
		if !found {
			return "", newError(KindPathNotFound, rawURL, "fetch", fmt.Errorf("path %s does not exist at commit %s", safetext.Quote(sub), commit), "check the path and the ref; paths are relative to the repository root and case-sensitive")
		}
	}
	return id.String(), nil
}
