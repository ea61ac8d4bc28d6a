package gitengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	memstore "github.com/go-git/go-git/v5/storage/memory"
)

// PushRequest asks Push to send local edits of one folder upstream: a new
// commit whose parent is Commit, holding Commit's tree with Changes applied
// under Path, on a new branch of URL.
type PushRequest struct {
	URL    string // the package's remote (any git URL, or a local repository path)
	Commit string // 40-hex: the locked commit, the new commit's parent
	Ref    string // optional: the ref Commit came from (see FetchRequest.Ref)
	Path   string // the package's sub-path inside the repository ("" = root)
	// Branch is the branch to create. "" means BranchPrefix followed by
	// the first 7 hex digits of the new commit's tree, so that pushing the
	// same edits again names the same branch (and finds it there).
	Branch       string
	BranchPrefix string
	Message      string    // the commit message
	Author       Signature // author and committer of the commit
	Changes      []Change  // the edits, relative to Path
	DryRun       bool      // build the commit and name the branch, push nothing
}

// Signature is a commit's author or committer.
type Signature struct {
	Name, Email string
	When        time.Time
}

// Change is one local edit of a package's file: its new content and mode,
// or its deletion.
type Change struct {
	Path    string      // slash-separated, relative to the package folder
	Delete  bool        // the file was deleted locally
	Mode    fs.FileMode // 0644, 0755 or fs.ModeSymlink (its content is the link's target)
	Content []byte
}

// PushResult is what Push did.
type PushResult struct {
	Branch string // the branch, without refs/heads/
	Commit string // the new commit (40-hex); "" when Unchanged
	// Unchanged: the edits leave the repository's tree as it was; nothing
	// was built or pushed.
	Unchanged bool
	// Existed: the branch was already on the remote with this content (a
	// push of the same edits before); nothing was pushed.
	Existed bool
	Pushed  bool // the branch was created
}

// maxPushChanges bounds the edits of one push.
const maxPushChanges = 100_000

// Push builds a commit from req (the tree of req.Commit with req.Changes
// applied at req.Path, the rest of the tree untouched; the parent is
// req.Commit) and pushes it to a new branch of req.URL, over smart HTTP,
// ssh or git (credentials as for a fetch: see connect), or into a local
// repository through go-git's own receive-pack. Only the locked commit's
// trees are needed: they come from the cache (fetched if it lacks them),
// and the new objects are built in memory. A branch that exists already is
// left alone: Push refuses unless its tip has the same tree (then Existed).
func (e *Engine) Push(ctx context.Context, req PushRequest) (*PushResult, error) {
	if len(req.Changes) > maxPushChanges {
		return nil, newError(KindOther, req.URL, "push", fmt.Errorf("%d changed files, over the limit of %d", len(req.Changes), maxPushChanges), "push fewer files at a time")
	}
	if req.Branch != "" {
		if err := CheckBranch(req.Branch); err != nil {
			return nil, newError(KindOther, req.URL, "push", err, "choose another branch name with --branch")
		}
	}
	g, err := e.gather(ctx, FetchRequest{URL: req.URL, Commit: req.Commit, Ref: req.Ref, Path: req.Path}, false)
	if err != nil {
		return nil, err
	}
	defer g.close()
	sub, _ := cleanSubPath(req.Path)
	mem := memstore.NewStorage()
	edits := map[string]treeEdit{}
	for _, ch := range req.Changes {
		p, ok := cleanSubPath(ch.Path)
		if !ok || p == "" || naming.PathProblem(p) != "" {
			return nil, newError(KindOther, req.URL, "push", fmt.Errorf("path %s is not a safe relative path", safetext.Quote(ch.Path)), "")
		}
		if sub != "" {
			p = sub + "/" + p
		}
		if ch.Delete {
			edits[p] = treeEdit{del: true}
			continue
		}
		mode := filemode.Regular
		switch {
		case ch.Mode&fs.ModeSymlink != 0:
			mode = filemode.Symlink
		case ch.Mode&fs.ModeType != 0:
			return nil, newError(KindOther, req.URL, "push", fmt.Errorf("%s is not a file or a symbolic link", safetext.Quote(ch.Path)), "")
		case ch.Mode.Perm()&0o100 != 0:
			mode = filemode.Executable
		}
		h, err := putObject(mem, plumbing.BlobObject, ch.Content)
		if err != nil {
			return nil, err
		}
		edits[p] = treeEdit{mode: mode, hash: h}
	}
	co, err := object.GetCommit(g.st, g.commit)
	if err != nil {
		return nil, newError(KindOther, req.URL, "push", fmt.Errorf("read commit %s: %w", g.commit, err), "")
	}
	root, _, err := editTree(g.st, mem, co.TreeHash, edits, 0)
	if err != nil {
		return nil, newError(KindOther, req.URL, "push", err, "")
	}
	res := &PushResult{Branch: req.Branch}
	if res.Branch == "" {
		res.Branch = req.BranchPrefix + root.String()[:7]
		if err := CheckBranch(res.Branch); err != nil {
			return nil, newError(KindOther, req.URL, "push", err, "choose a branch name with --branch")
		}
	}
	if root == co.TreeHash {
		res.Unchanged = true
		return res, nil
	}
	sig := object.Signature{Name: req.Author.Name, Email: req.Author.Email, When: req.Author.When}
	nc := &object.Commit{Author: sig, Committer: sig, Message: req.Message, TreeHash: root, ParentHashes: []plumbing.Hash{g.commit}}
	obj := mem.NewEncodedObject()
	if err := nc.Encode(obj); err != nil {
		return nil, err
	}
	commit, err := mem.SetEncodedObject(obj)
	if err != nil {
		return nil, err
	}
	res.Commit = commit.String()
	if req.DryRun {
		return res, nil
	}
	return res, e.send(ctx, g.r, mem, root, plumbing.NewBranchReferenceName(res.Branch), commit, res)
}

// CheckBranch refuses a branch name git would refuse (ctx push --branch
// checks it before it reads anything).
func CheckBranch(b string) error {
	if strings.HasPrefix(b, "-") || strings.HasPrefix(b, "refs/") {
		return fmt.Errorf("branch name %s is not valid: give a branch name, not a ref or an option", safetext.Quote(b))
	}
	if err := plumbing.NewBranchReferenceName(b).Validate(); err != nil {
		return fmt.Errorf("branch name %s is not valid (%v)", safetext.Quote(b), err)
	}
	return nil
}

// putObject writes content as an object of type t into st.
func putObject(st storer.EncodedObjectStorer, t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	obj := st.NewEncodedObject()
	obj.SetType(t)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// treeEdit is what becomes of one path: deleted, or a blob with a mode.
type treeEdit struct {
	del  bool
	mode filemode.FileMode
	hash plumbing.Hash
}

// editTree applies edits (paths relative to the tree) to the tree h of src
// (zero: an empty tree) and writes the trees it changes into dst. Subtrees
// no edit reaches are kept by id. It returns the new tree's id and whether
// it is empty (then nothing was written: the parent drops the entry).
func editTree(src, dst storer.EncodedObjectStorer, h plumbing.Hash, edits map[string]treeEdit, depth int) (plumbing.Hash, bool, error) {
	if depth > naming.MaxDepth {
		return plumbing.ZeroHash, false, errors.New("folders nested too deep")
	}
	var entries []object.TreeEntry
	if !h.IsZero() {
		t, err := object.GetTree(src, h)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read tree %s: %w", h, err)
		}
		entries = t.Entries
	}
	leaf := map[string]treeEdit{}
	below := map[string]map[string]treeEdit{}
	for p, ed := range edits {
		name, rest, ok := strings.Cut(p, "/")
		if !ok {
			leaf[name] = ed
			continue
		}
		if below[name] == nil {
			below[name] = map[string]treeEdit{}
		}
		below[name][rest] = ed
	}
	old := map[string]object.TreeEntry{}
	names := map[string]bool{}
	for _, te := range entries {
		old[te.Name] = te
		names[te.Name] = true
	}
	for n := range leaf {
		names[n] = true
	}
	for n := range below {
		names[n] = true
	}
	out := make([]object.TreeEntry, 0, len(names))
	for name := range names {
		te, had := old[name]
		ed, isLeaf := leaf[name]
		sub, isDir := below[name]
		switch {
		case isLeaf && !ed.del:
			out = append(out, object.TreeEntry{Name: name, Mode: ed.mode, Hash: ed.hash})
		case isDir:
			base := plumbing.ZeroHash
			if had && te.Mode == filemode.Dir && !isLeaf {
				base = te.Hash
			}
			nh, empty, err := editTree(src, dst, base, sub, depth+1)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			if !empty {
				out = append(out, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: nh})
			}
		case isLeaf: // deleted
		case had:
			out = append(out, te)
		}
	}
	if len(out) == 0 {
		return plumbing.ZeroHash, true, nil
	}
	// git's order: a folder sorts as if its name ended in "/".
	key := func(te object.TreeEntry) string {
		if te.Mode == filemode.Dir {
			return te.Name + "/"
		}
		return te.Name
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	t := &object.Tree{Entries: out}
	obj := dst.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, false, err
	}
	nh, err := dst.SetEncodedObject(obj)
	return nh, false, err
}

// send pushes the objects of mem (the new commit, trees and blobs) and
// creates branch at commit. A branch already there is refused unless its
// tip's tree is root (res.Existed).
func (e *Engine) send(ctx context.Context, r *remote, mem *memstore.Storage, root plumbing.Hash, branch plumbing.ReferenceName, commit plumbing.Hash, res *PushResult) error {
	var (
		sess    transport.ReceivePackSession
		adv     *packp.AdvRefs
		tipTree func(tip plumbing.Hash) (plumbing.Hash, error)
		sent    bool
	)
	if r.local != "" {
		repo, err := openLocal(r)
		if err != nil {
			return err
		}
		srv := server.NewServer(server.MapLoader{r.ep.String(): repo.Storer})
		if sess, err = srv.NewReceivePackSession(r.ep, nil); err != nil {
			return newError(KindOther, r.raw, "push", err, "")
		}
		defer sess.Close()
		if adv, err = sess.AdvertisedReferencesContext(ctx); err != nil {
			return classify(r.raw, "push", err, false)
		}
		tipTree = func(tip plumbing.Hash) (plumbing.Hash, error) {
			co, err := object.GetCommit(repo.Storer, tip)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			return co.TreeHash, nil
		}
	} else {
		c, err := e.connectReceive(ctx, r, "push")
		if err != nil {
			return err
		}
		defer c.close()
		sess, adv, sent = c.rsess, c.adv, c.sentCreds
		tipTree = func(tip plumbing.Hash) (plumbing.Hash, error) { return e.remoteCommitTree(ctx, r, tip) }
	}
	if tip, ok := adv.References[branch.String()]; ok {
		if tip == commit {
			res.Existed = true
			return nil
		}
		tree, err := tipTree(tip)
		if err != nil {
			return newError(KindOther, r.raw, "push", fmt.Errorf("branch %s exists; read its tip %s: %w", safetext.Quote(branch.Short()), tip, err), "choose another branch name with --branch")
		}
		if tree == root {
			res.Existed, res.Commit = true, tip.String()
			return nil
		}
		return newError(KindRefused, r.raw, "push", fmt.Errorf("branch %s already exists with other content (its tip is %s)", safetext.Quote(branch.Short()), tip), "choose another branch name with --branch, or delete that branch on the remote")
	}
	var pack bytes.Buffer
	var hashes []plumbing.Hash
	iter, err := mem.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		return err
	}
	_ = iter.ForEach(func(o plumbing.EncodedObject) error { hashes = append(hashes, o.Hash()); return nil })
	if _, err := packfile.NewEncoder(&pack, mem, !adv.Capabilities.Supports(capability.OFSDelta)).Encode(hashes, 10); err != nil {
		return fmt.Errorf("build the pack: %w", err)
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	req.Commands = []*packp.Command{{Name: branch, Old: plumbing.ZeroHash, New: commit}}
	req.Packfile = io.NopCloser(&pack)
	wctx, _, stop := e.watch(ctx)
	defer stop()
	rs, err := sess.ReceivePack(wctx, req)
	if err == nil && rs != nil {
		err = rs.Error()
	}
	if err != nil {
		ge := classify(r.raw, "push", stalled(wctx, err), sent)
		if ge.Kind == KindOther && strings.Contains(strings.ToLower(err.Error()), "denied") {
			ge.Kind, ge.Hint = KindRefused, "the remote refused the branch: check that you may push to it"
		}
		return ge
	}
	res.Pushed = true
	return nil
}

// remoteCommitTree returns the tree of commit tip of r, fetching the commit
// (without blobs) into the cache when it is not there.
func (e *Engine) remoteCommitTree(ctx context.Context, r *remote, tip plumbing.Hash) (plumbing.Hash, error) {
	st, unlock, err := e.openCache(ctx, r, true)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer unlock()
	defer st.Close()
	if st.HasEncodedObject(tip) != nil {
		c, err := e.connect(ctx, r, "fetch")
		if err != nil {
			return plumbing.ZeroHash, err
		}
		defer c.close()
		if err := e.fetchCommit(ctx, c, st, tip, "", false); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	co, err := object.GetCommit(verified(st), tip)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return co.TreeHash, nil
}

// Files lists the files Materialize would write for req (the same files,
// blob ids and modes, safe symlinks only, none over the size limit),
// writing nothing: what a package at req.Commit holds, to compare local
// files with.
func (e *Engine) Files(ctx context.Context, req FetchRequest) ([]File, error) {
	req.Against = "" // every file
	g, err := e.gather(ctx, req, false)
	if err != nil {
		return nil, err
	}
	defer g.close()
	entries, _ := e.dropLarge(g.st, g.entries, nil)
	files := make([]File, 0, len(entries))
	for _, en := range entries {
		f := File{Path: en.path, BlobID: en.hash.String(), Mode: fileMode(en.mode)}
		if en.mode == filemode.Symlink {
			target, err := readTarget(g.st, en.hash)
			if err != nil {
				return nil, fmt.Errorf("read symlink %s: %w", en.path, err)
			}
			if !safeSymlink(en.path, target) {
				continue
			}
		}
		if size, err := g.st.EncodedObjectSize(en.hash); err == nil {
			f.Size = size
		}
		files = append(files, f)
	}
	return files, nil
}
