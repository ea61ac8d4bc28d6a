package gitengine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/go-git/go-billy/v5"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// openLocal opens a repository on this machine directly with go-git: local
// paths and file:// URLs need neither a git binary nor a transport, and
// their objects are read in place (no copy into the cache).
func openLocal(r *remote) (*git.Repository, error) {
	repo, err := PlainOpen(r.local, false)
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, newError(KindNotFound, r.raw, "open", &NoRepositoryError{Path: r.local}, "check the path; it must be a git repository (a folder with .git, or a bare repository)")
		}
		return nil, newError(KindOther, r.raw, "open", safetext.ClipPathError(err), "")
	}
	return repo, nil
}

// localRepo is what an Engine keeps of a local repository it reads
// (openLocalRead): the repository's git folder as PlainOpen found it
// (the folders, the common folder of a linked worktree, the extensions
// checked) and one cache of the objects read from it, which every storage
// of the repository the Engine opens shares. An update read one source
// five times (its refs, the package's tree, the fetch, and both sides of
// the change summary), each opening and checking the folder again and
// inflating the same commit and trees (issue 31, upd23). An object is
// named by its content, so a cached one is never stale; each call still
// gets a storage of its own, which lists the packs afresh, so a repack
// of the repository meanwhile is seen as it was.
type localRepo struct {
	fs       billy.Filesystem // the git folder, as PlainOpen's storage reads it
	tolerant bool             // PlainOpen read it through tolerant (extensions.worktreeConfig)
	objects  cache.Object
}

// localObjects bounds the objects an Engine keeps of one local
// repository: its trees and commits, and the small blobs of one command.
const localObjects = 8 * cache.MiByte

// openLocalRead returns a storage of the local repository of r for
// reading (refs and objects), opening and checking its folder once in
// the Engine's life (localRepo); a failure to open it is remembered too.
// Push, which writes into it, opens it on its own (openLocal).
func (e *Engine) openLocalRead(r *remote) (storage.Storer, *localRepo, error) {
	lr, err := e.mem.locals.do(context.Background(), r.local, func() (*localRepo, error) {
		repo, err := openLocal(r)
		if err != nil {
			return nil, err
		}
		switch st := repo.Storer.(type) {
		case *filesystem.Storage:
			return &localRepo{fs: st.Filesystem(), objects: cache.NewObjectLRU(localObjects)}, nil
		case *tolerant:
			return &localRepo{fs: st.Filesystem(), tolerant: true, objects: cache.NewObjectLRU(localObjects)}, nil
		}
		return nil, fmt.Errorf("open %s: unexpected storage %T", safetext.Clip(r.local, 0), repo.Storer)
	})
	if err != nil {
		return nil, nil, err
	}
	st := filesystem.NewStorage(lr.fs, lr.objects)
	if lr.tolerant {
		return &tolerant{Storage: st}, lr, nil
	}
	return st, lr, nil
}

// NoRepositoryError is a local repository's path (a path or file:// URL)
// where there is no git repository: moved, deleted, or never one. The
// Error's Kind is KindNotFound; unlike a server's "not found", which may
// hide a repository from this user, it is certain, so a caller can say
// what happened (workspace: "repository gone") rather than "no access".
type NoRepositoryError struct{ Path string }

func (e *NoRepositoryError) Error() string {
	return "no git repository at " + safetext.Clip(e.Path, 0)
}

// entry is one file or symlink found under the sub-path.
type entry struct {
	path string // relative to the package folder
	mode filemode.FileMode
	hash plumbing.Hash
}

// Materialize fetches what the cache lacks for req and writes the sub-path's
// files into dest, which must not exist: files go to a temp dir beside dest,
// which is then renamed to dest. On error nothing is left at dest.
func (e *Engine) Materialize(ctx context.Context, req FetchRequest, dest string) (*Result, error) {
	if _, err := os.Lstat(dest); err == nil {
		return nil, fmt.Errorf("materialize into %s: it already exists (remove it first)", dest)
	}
	req.Against = "" // every file is written
	g, err := e.gather(ctx, req, false)
	if err != nil {
		return nil, err
	}
	defer g.close()
	entries, large := e.dropLarge(g.st, g.entries, req.KnownSize)
	g.skipped = append(g.skipped, large...)
	files, wskipped, err := e.write(ctx, g.st, g.r, entries, dest, req.Have)
	if err != nil {
		return nil, err
	}
	skipped := append(g.skipped, wskipped...)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return &Result{Commit: g.commit.String(), TreeID: g.treeID.String(), Files: files, Skipped: skipped, Bytes: g.bytes()}, nil
}

// ReadFile returns the content of the one file req.Path names at req.Commit,
// fetching only the commit's trees and that blob (a registry file, say).
func (e *Engine) ReadFile(ctx context.Context, req FetchRequest) ([]byte, error) {
	g, err := e.gather(ctx, req, true)
	if err != nil {
		return nil, err
	}
	defer g.close()
	if len(g.entries) != 1 || !g.entries[0].mode.IsFile() || g.entries[0].mode == filemode.Symlink {
		return nil, newError(KindPathNotFound, req.URL, "fetch", fmt.Errorf("%s at commit %s is not a regular file", safetext.Quote(req.Path), g.commit), "")
	}
	obj, err := g.st.EncodedObject(plumbing.BlobObject, g.entries[0].hash)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", req.Path, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", req.Path, err)
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// dropLarge removes the files over the size limit from entries (their size
// from known when it knows it, else read from the object's header, not its
// content) and reports them.
func (e *Engine) dropLarge(st storer.EncodedObjectStorer, entries []entry, known func(path, blobID string) (int64, bool)) ([]entry, []Skipped) {
	limit := e.opts.MaxFileSize
	if limit == 0 {
		limit = DefaultMaxFileSize
	}
	if limit < 0 {
		return entries, nil
	}
	kept := make([]entry, 0, len(entries))
	var skipped []Skipped
	for _, en := range entries {
		if en.mode != filemode.Symlink {
			size, ok := int64(0), false
			if known != nil {
				size, ok = known(en.path, en.hash.String())
			}
			var err error
			if !ok {
				size, err = st.EncodedObjectSize(en.hash)
			}
			if err == nil && size > limit && (ok || blobSizeTrusted(st, en.hash)) {
				skipped = append(skipped, Skipped{Path: displayPath(en.path), Reason: fmt.Sprintf("file of %d bytes is over the size limit of %d bytes (CTX_MAX_FILE_SIZE)", size, limit)})
				continue
			}
		}
		kept = append(kept, en)
	}
	return kept, skipped
}

// gathered is what a request needs from the object store: the entries under
// the sub-path (or the one file), with their objects present in st.
type gathered struct {
	r       *remote
	st      storer.EncodedObjectStorer
	commit  plumbing.Hash
	treeID  plumbing.Hash
	entries []entry
	skipped []Skipped
	// diff is the tree entries were listed against (FetchRequest.Against),
	// nil when none was asked for; diff.used says it was.
	diff   *diffBase
	c      *conn  // nil when nothing was fetched
	unread func() // releases the cache's readers lock; nil when none is held
	// closer closes the files st keeps open (newStorage's keep); nil when
	// none.
	closer io.Closer
}

func (g *gathered) bytes() int64 {
	if g.c == nil {
		return 0
	}
	return g.c.received.Load()
}

func (g *gathered) close() {
	if g.c != nil {
		g.c.close()
	}
	if g.closer != nil {
		_ = g.closer.Close()
		g.closer = nil
	}
	if g.unread != nil {
		g.unread()
		g.unread = nil
	}
}

// gather makes the objects of req present: read in place for a local
// repository, else through the cache, fetching only what it lacks. With
// file, req.Path names one file rather than a folder.
func (e *Engine) gather(ctx context.Context, req FetchRequest, file bool) (*gathered, error) {
	commitID := strings.ToLower(strings.TrimSpace(req.Commit))
	if len(commitID) != 40 || !isHex(commitID) {
		return nil, newError(KindOther, req.URL, "fetch", fmt.Errorf("commit %s is not a 40-character commit id", safetext.Quote(req.Commit)), "resolve the ref first")
	}
	commit := plumbing.NewHash(commitID)
	sub, ok := cleanSubPath(req.Path)
	if !ok || (file && sub == "") {
		return nil, newError(KindPathNotFound, req.URL, "fetch", fmt.Errorf("path %s is not a valid sub-path", safetext.Quote(req.Path)), "use a relative path without \"..\" or \".git\"")
	}
	r, err := parseRemote(req.URL)
	if err != nil {
		return nil, err
	}
	g := &gathered{r: r, commit: commit}
	if t := strings.ToLower(strings.TrimSpace(req.Against)); len(t) == 40 && isHex(t) && !file {
		g.diff = &diffBase{tree: plumbing.NewHash(t)}
	}
	if r.local != "" {
		st, lr, err := e.openLocalRead(r)
		if err != nil {
			return nil, err
		}
		g.st = st
		if !lr.tolerant {
			// Read big objects from disk as streams, not whole into memory.
			st := newStorageCached(lr.fs, true, lr.objects)
			g.st, g.closer = st, st
		}
		if g.treeID, g.entries, g.skipped, err = collect(g.st, r.raw, commit, sub, file, g.diff); err != nil {
			return nil, err
		}
		return g, nil
	}
	cst, unlock, err := e.openCache(ctx, r, true)
	if err != nil {
		return nil, err
	}
	g.closer = cst
	var byTree plumbing.Hash // the locked tree, when it is what is fetched
	if t := strings.ToLower(strings.TrimSpace(req.Tree)); !file && req.Have == nil && len(t) == 40 && isHex(t) {
		byTree = plumbing.NewHash(t)
	}
	g.treeID, g.entries, g.skipped, g.c, byTree, err = e.fill(ctx, r, cst, commit, byTree, req.Ref, sub, file, req.Have, g.diff)
	if err == nil {
		// What gc keeps; failing to note it only costs a fetch later.
		_ = recordUse(cst, r, commit, sub, byTree, time.Now())
		// Hold the readers lock from here until close, so that gc, which
		// needs the fetch lock held now, cannot remove what is read.
		g.unread, err = readLock(ctx, cst)
	}
	unlock()
	if err != nil {
		g.close()
		return nil, err
	}
	g.st = verified(cst)
	return g, nil
}

// fill makes sure the cache holds commit, its trees and the blobs under sub
// (but for the files have says the caller has), fetching only what is
// missing. It runs under the cache lock.
//
// With a tree (FetchRequest.Tree) and a cache that lacks the commit, it
// fetches that tree and everything under it instead, in one request over
// smart HTTP, and reports the tree it used (else zero); if the server
// will not send it, or sends it incomplete, it goes the commit's way.
func (e *Engine) fill(ctx context.Context, r *remote, st *filesystem.Storage, commit, tree plumbing.Hash, ref, sub string, file bool, have func(path, blobID string, mode fs.FileMode) bool, diff *diffBase) (plumbing.Hash, []entry, []Skipped, *conn, plumbing.Hash, error) {
	treeID, entries, skipped, c, err := e.fillCommit(ctx, r, st, commit, tree, ref, sub, file, have, diff)
	if err != nil || treeID != tree || st.HasEncodedObject(commit) == nil {
		tree = plumbing.ZeroHash // the commit's way
	}
	return treeID, entries, skipped, c, tree, err
}

func (e *Engine) fillCommit(ctx context.Context, r *remote, st *filesystem.Storage, commit, tree plumbing.Hash, ref, sub string, file bool, have func(path, blobID string, mode fs.FileMode) bool, diff *diffBase) (plumbing.Hash, []entry, []Skipped, *conn, error) {
	f := &filling{e: e, ctx: ctx, r: r, st: st}
	treeID, entries, skipped, err := f.entries(commit, tree, ref, sub, file, have, diff)
	if err == nil {
		err = f.blobs(commit, ref, entries, have)
	}
	if err != nil {
		return plumbing.ZeroHash, nil, nil, f.c, err
	}
	return treeID, entries, skipped, f.c, nil
}

// filling is one fill's way to the server: the conn it dials, an assumed
// one (no advertisement) when allowed and possible.
type filling struct {
	e   *Engine
	ctx context.Context
	r   *remote
	st  *filesystem.Storage
	c   *conn
}

// dial gets a conn: an assumed one when assumed allows it, else a real one.
func (f *filling) dial(assumed bool) error {
	if f.c != nil && (assumed || !f.c.assumed) {
		return nil
	}
	if assumed {
		if f.c = f.e.assume(f.r); f.c != nil {
			return nil
		}
	}
	var received int64
	if f.c != nil {
		received = f.c.received.Load()
		f.c.close()
	}
	var err error
	f.c, err = f.e.connect(f.ctx, f.r, "fetch")
	if f.c != nil {
		f.c.received.Add(received)
	}
	return err
}

// retry reports whether a request on an assumed conn failed (or did not
// bring what it should) in a way a real conn may not: then the assumed
// conn is dropped. A server given up on for its time (timedOut) is not
// asked again: that would cost the caller another idle timeout.
func (f *filling) retry(err error, missing func() bool) bool {
	if f.c == nil || !f.c.assumed || f.ctx.Err() != nil || timedOut(err) || (err == nil && !missing()) {
		return false
	}
	if err != nil {
		f.c.giveUp(err)
	}
	return true
}

// entries lists the files below sub: from the tree alone when the cache
// lacks the commit and the server sends trees by id (one request), else
// from the commit, fetched when missing.
func (f *filling) entries(commit, tree plumbing.Hash, ref, sub string, file bool, have func(path, blobID string, mode fs.FileMode) bool, diff *diffBase) (plumbing.Hash, []entry, []Skipped, error) {
	byTree := !tree.IsZero() && !file && have == nil && f.r.isHTTP() && f.st.HasEncodedObject(commit) != nil
	if byTree && f.st.HasEncodedObject(tree) != nil {
		if err := f.fetchTree(tree, commit); err != nil {
			return plumbing.ZeroHash, nil, nil, err
		}
	}
	if byTree && f.st.HasEncodedObject(tree) == nil {
		if treeID, entries, skipped, err := collectTree(verified(f.st), tree, diff); err == nil {
			return treeID, entries, skipped, nil
		}
	}
	if f.st.HasEncodedObject(commit) != nil {
		if err := f.dial(true); err != nil {
			return plumbing.ZeroHash, nil, nil, err
		}
		err := f.e.fetchCommit(f.ctx, f.c, f.st, commit, ref, false)
		if f.retry(err, func() bool { return f.st.HasEncodedObject(commit) != nil }) {
			if err = f.dial(false); err != nil {
				return plumbing.ZeroHash, nil, nil, err
			}
			err = f.e.fetchCommit(f.ctx, f.c, f.st, commit, ref, false)
		}
		if err != nil {
			return plumbing.ZeroHash, nil, nil, classifyFetch(f.c, commit, err)
		}
		if f.st.HasEncodedObject(commit) != nil {
			return plumbing.ZeroHash, nil, nil, commitGone(f.r.raw, commit, errors.New("the server did not send it"), "")
		}
	}
	treeID, entries, skipped, err := collect(verified(f.st), f.r.raw, commit, sub, file, diff)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// A tree is missing from the cache (an interrupted or foreign
		// store): fetch the whole commit again, offering nothing.
		if err := f.dial(false); err != nil {
			return plumbing.ZeroHash, nil, nil, err
		}
		if err := f.e.fetchCommit(f.ctx, f.c, f.st, commit, ref, true); err != nil {
			return plumbing.ZeroHash, nil, nil, classifyFetch(f.c, commit, err)
		}
		treeID, entries, skipped, err = collect(verified(f.st), f.r.raw, commit, sub, file, diff)
	}
	return treeID, entries, skipped, err
}

// fetchTree asks for tree and everything under it, unless the host has
// refused that before. A refusal is remembered for the host, and leaves a
// conn that has read the server's advertisement for the commit's way; the
// error returned is one that ends the fill (cancelled, timed out, no conn).
func (f *filling) fetchTree(tree, commit plumbing.Hash) error {
	if _, refused := f.e.mem.treeRefused.Load(hostKey(f.r)); refused {
		return nil
	}
	if err := f.dial(true); err != nil {
		return err
	}
	err := f.e.fetchTree(f.ctx, f.c, f.st, tree)
	if err == nil {
		return nil
	}
	if f.ctx.Err() != nil || timedOut(err) {
		return classifyFetch(f.c, commit, err)
	}
	f.e.mem.treeRefused.Store(hostKey(f.r), true)
	if f.c.assumed {
		f.c.giveUp(err)
		return f.dial(false)
	}
	return nil
}

// blobs fetches the blobs of entries that the cache lacks, except those
// have says are in place already.
func (f *filling) blobs(commit plumbing.Hash, ref string, entries []entry, have func(path, blobID string, mode fs.FileMode) bool) error {
	var missing []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	for _, en := range entries {
		if have != nil && en.mode != filemode.Symlink && have(en.path, en.hash.String(), fileMode(en.mode)) {
			continue // not written: its blob is not needed
		}
		if !seen[en.hash] && f.st.HasEncodedObject(en.hash) != nil {
			seen[en.hash] = true
			missing = append(missing, en.hash)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	firstMissing := func() (plumbing.Hash, bool) {
		for _, h := range missing {
			if f.st.HasEncodedObject(h) != nil {
				return h, true
			}
		}
		return plumbing.ZeroHash, false
	}
	stillMissing := func() bool { _, ok := firstMissing(); return ok }
	if err := f.dial(true); err != nil {
		return err
	}
	err := f.e.fetchBlobs(f.ctx, f.c, f.st, missing)
	if f.retry(err, stillMissing) {
		if err = f.dial(false); err != nil {
			return err
		}
		err = f.e.fetchBlobs(f.ctx, f.c, f.st, missing)
	}
	if err != nil && f.c.refused(err, false) {
		f.e.warn(fmt.Sprintf("%s: the server will not send single files by id; fetching the whole snapshot of %s instead", naming.RedactURL(f.r.raw), commit))
		err = f.e.fetchCommit(f.ctx, f.c, f.st, commit, ref, true)
	}
	if err != nil {
		return classifyFetch(f.c, commit, err)
	}
	if h, ok := firstMissing(); ok {
		// A damaged store, not the server, when one of its packs cannot
		// be read (the haves named what it lost: a thin pack left it out).
		dir := f.st.Filesystem().Root()
		if why := storeDamage(dir); why != "" {
			return &CacheDamagedError{Dir: dir, Object: h.String(), Why: "is missing after a fetch: " + why}
		}
		return newError(KindOther, f.r.raw, "fetch", fmt.Errorf("the server did not send blob %s", h), "retry; if it persists, report the server's behaviour")
	}
	return nil
}

func classifyFetch(c *conn, commit plumbing.Hash, err error) error {
	if ge := (*Error)(nil); errors.As(err, &ge) {
		return err
	}
	return classify(c.r.raw, "fetch", fmt.Errorf("commit %s: %w", commit, err), c.sentCreds)
}

// collect walks commit's tree down to sub and lists the entries below it;
// with file, sub names one file and that is the one entry. With diff, only
// those that differ from diff's tree (walkAll).
func collect(st storer.EncodedObjectStorer, rawURL string, commit plumbing.Hash, sub string, file bool, diff *diffBase) (plumbing.Hash, []entry, []Skipped, error) {
	co, err := object.GetCommit(st, commit)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, nil, nil, commitGone(rawURL, commit, nil, "")
		}
		return plumbing.ZeroHash, nil, nil, newError(KindOther, rawURL, "fetch", fmt.Errorf("read commit %s: %w", commit, err), "")
	}
	tree, err := object.GetTree(st, co.TreeHash)
	if err != nil {
		return plumbing.ZeroHash, nil, nil, err
	}
	if sub != "" {
		walked := ""
		for _, name := range strings.Split(sub, "/") {
			walked = path.Join(walked, name)
			var found *object.TreeEntry
			for i := range tree.Entries {
				if tree.Entries[i].Name == name {
					found = &tree.Entries[i]
					break
				}
			}
			if found == nil {
				return plumbing.ZeroHash, nil, nil, newError(KindPathNotFound, rawURL, "fetch",
					fmt.Errorf("path %s does not exist at commit %s", safetext.Quote(sub), commit), "check the path and the ref; paths are relative to the repository root and case-sensitive")
			}
			if file && walked == sub {
				if found.Mode == filemode.Dir || found.Mode == filemode.Submodule {
					return plumbing.ZeroHash, nil, nil, newError(KindPathNotFound, rawURL, "fetch",
						fmt.Errorf("path %s at commit %s is a folder, not a file", safetext.Quote(sub), commit), "give the path of the file")
				}
				return plumbing.ZeroHash, []entry{{path: name, mode: found.Mode, hash: found.Hash}}, nil, nil
			}
			if found.Mode != filemode.Dir {
				return plumbing.ZeroHash, nil, nil, newError(KindPathNotFound, rawURL, "fetch",
					fmt.Errorf("path %s at commit %s: %s is not a folder", safetext.Quote(sub), commit, safetext.Quote(walked)), "a package is a folder: give the folder that holds the file")
			}
			if tree, err = object.GetTree(st, found.Hash); err != nil {
				return plumbing.ZeroHash, nil, nil, err
			}
		}
	}
	return walkAll(st, tree, diff)
}

// collectTree lists the entries below tree (a folder's tree, by id).
func collectTree(st storer.EncodedObjectStorer, tree plumbing.Hash, diff *diffBase) (plumbing.Hash, []entry, []Skipped, error) {
	t, err := object.GetTree(st, tree)
	if err != nil {
		return plumbing.ZeroHash, nil, nil, err
	}
	return walkAll(st, t, diff)
}

// diffBase is the tree a listing is made against (FetchRequest.Against):
// used says that st held it and the listing left out what it shares.
type diffBase struct {
	tree plumbing.Hash
	used bool
}

// walkAll lists the entries below tree, and what it skips; with diff,
// when st holds diff's tree, only those that differ from it: an entry
// with the same name, mode and id in diff's tree at the same place (a
// file, or a folder, whose entries are then not walked) is left out.
func walkAll(st storer.EncodedObjectStorer, tree *object.Tree, diff *diffBase) (plumbing.Hash, []entry, []Skipped, error) {
	var entries []entry
	var skipped []Skipped
	var other *object.Tree
	if diff != nil {
		diff.used = false
		if st.HasEncodedObject(diff.tree) == nil {
			t, err := object.GetTree(st, diff.tree)
			if err != nil {
				return plumbing.ZeroHash, nil, nil, err
			}
			other, diff.used = t, true
		}
	}
	err := walk(st, tree, other, "", 0, &entries, &skipped)
	if err != nil && other != nil {
		// A folder of diff's tree is not in st (an interrupted or foreign
		// store): this tree is listed whole, and the caller reads the
		// other side whole too (used is false).
		entries, skipped, diff.used = nil, nil, false
		err = walk(st, tree, nil, "", 0, &entries, &skipped)
	}
	if err != nil {
		return plumbing.ZeroHash, nil, nil, err
	}
	return tree.Hash, entries, skipped, nil
}

// walk lists the entries below tree that other (nil: none) does not hold
// as they are.
func walk(st storer.EncodedObjectStorer, tree, other *object.Tree, prefix string, depth int, out *[]entry, skipped *[]Skipped) error {
	if depth > naming.MaxDepth {
		*skipped = append(*skipped, Skipped{Path: displayPath(prefix), Reason: "folders nested too deep"})
		return nil
	}
	var theirs map[string]object.TreeEntry
	if other != nil {
		theirs = make(map[string]object.TreeEntry, len(other.Entries))
		for _, te := range other.Entries {
			if _, dup := theirs[te.Name]; !dup {
				theirs[te.Name] = te
			} else {
				theirs[te.Name] = object.TreeEntry{} // a duplicate: nothing is the same as it
			}
		}
		// A name this tree holds twice is not the same as the other's
		// either: which of its entries is listed is decided below.
		mine := make(map[string]bool, len(tree.Entries))
		for _, te := range tree.Entries {
			if mine[te.Name] {
				theirs[te.Name] = object.TreeEntry{}
			}
			mine[te.Name] = true
		}
	}
	seen := make(map[string]bool, len(tree.Entries))
	for _, te := range tree.Entries {
		p := prefix + te.Name
		skip := func(reason string) { *skipped = append(*skipped, Skipped{Path: displayPath(p), Reason: reason}) }
		why := nameProblem(te.Name)
		if why == "" {
			why = naming.PathProblem(p)
		}
		if why != "" {
			skip(why)
			continue
		}
		if seen[te.Name] {
			skip("duplicate entry")
			continue
		}
		seen[te.Name] = true
		var sub *object.Tree
		if o, ok := theirs[te.Name]; ok && o.Mode == te.Mode && !o.Hash.IsZero() {
			if o.Hash == te.Hash && (te.Mode == filemode.Dir || te.Mode == filemode.Regular || te.Mode == filemode.Deprecated || te.Mode == filemode.Executable || te.Mode == filemode.Symlink) {
				continue // the same in both: nothing under it differs
			}
			if te.Mode == filemode.Dir {
				t, err := object.GetTree(st, o.Hash)
				if err != nil {
					return err
				}
				sub = t
			}
		}
		switch te.Mode {
		case filemode.Dir:
			t, err := object.GetTree(st, te.Hash)
			if err != nil {
				return err
			}
			if err := walk(st, t, sub, p+"/", depth+1, out, skipped); err != nil {
				return err
			}
		case filemode.Submodule:
			skip("submodule")
		case filemode.Regular, filemode.Deprecated, filemode.Executable, filemode.Symlink:
			*out = append(*out, entry{path: p, mode: te.Mode, hash: te.Hash})
		default:
			skip(fmt.Sprintf("unsupported mode %o", uint32(te.Mode)))
		}
	}
	return nil
}

// write creates the entries in a temp dir beside dest and renames it to dest.
func (e *Engine) write(ctx context.Context, st storer.EncodedObjectStorer, r *remote, entries []entry, dest string, have func(path, blobID string, mode fs.FileMode) bool) ([]File, []Skipped, error) {
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+".tmp-")
	if err != nil {
		return nil, nil, fmt.Errorf("create a temp dir beside %s: %w", dest, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(tmp)
		}
	}()
	files, skipped, err := e.writeEntries(ctx, st, r, entries, tmp, have)
	if err != nil {
		return nil, nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, nil, err
	}
	if _, err := os.Lstat(dest); err == nil {
		return nil, nil, fmt.Errorf("materialize into %s: it appeared while writing (another ctx running?); remove it and retry", dest)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return nil, nil, fmt.Errorf("move %s into place: %w", dest, err)
	}
	ok = true
	return files, skipped, nil
}

// fileMode is the mode Materialize gives a file of git mode m (File.Mode).
func fileMode(m filemode.FileMode) fs.FileMode {
	switch m {
	case filemode.Executable:
		return 0o755
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	}
	return 0o644
}

func (e *Engine) writeEntries(ctx context.Context, st storer.EncodedObjectStorer, r *remote, entries []entry, root string, have func(path, blobID string, mode fs.FileMode) bool) ([]File, []Skipped, error) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	var (
		files   []File
		skipped []Skipped
		links   []entry
	)
	dirs := map[string]bool{"": true}
	mkdirs := func(rel string) error {
		var walked string
		for _, c := range strings.Split(rel, "/") {
			walked = path.Join(walked, c)
			if dirs[walked] {
				continue
			}
			if err := os.Mkdir(filepath.Join(root, filepath.FromSlash(walked)), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			dirs[walked] = true
		}
		return nil
	}
	url := naming.RedactURL(r.raw)
	for i, en := range entries {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			e.progress(Progress{URL: url, Phase: "write", Objects: len(files)})
		}
		if en.mode == filemode.Symlink {
			links = append(links, en) // after all files, so nothing is written through one
			continue
		}
		if have != nil && have(en.path, en.hash.String(), fileMode(en.mode)) {
			files = append(files, File{Path: en.path, BlobID: en.hash.String(), Mode: fileMode(en.mode), Kept: true})
			continue
		}
		if d := path.Dir(en.path); d != "." {
			if err := mkdirs(d); err != nil {
				return nil, nil, fmt.Errorf("create folder for %s: %w", en.path, err)
			}
		}
		perm := fs.FileMode(0o644)
		if en.mode == filemode.Executable {
			perm = 0o755
		}
		size, sum, err := writeBlob(st, en.hash, filepath.Join(root, filepath.FromSlash(en.path)), perm)
		if errors.Is(err, fs.ErrExist) {
			skipped = append(skipped, Skipped{Path: en.path, Reason: "collides with another entry"})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("write %s: %w", en.path, err)
		}
		files = append(files, File{Path: en.path, BlobID: en.hash.String(), Mode: perm, Size: size, Sum: sum})
	}
	for _, en := range links {
		target, err := readTarget(st, en.hash)
		if err != nil {
			return nil, nil, fmt.Errorf("read symlink %s: %w", en.path, err)
		}
		if !safeSymlink(en.path, target) {
			skipped = append(skipped, Skipped{Path: en.path, Reason: "symlink leaves the package"})
			continue
		}
		if have != nil && have(en.path, en.hash.String(), fileMode(en.mode)) {
			files = append(files, File{Path: en.path, BlobID: en.hash.String(), Mode: fileMode(en.mode), Size: int64(len(target)), Kept: true})
			continue
		}
		if d := path.Dir(en.path); d != "." {
			if err := mkdirs(d); err != nil {
				return nil, nil, fmt.Errorf("create folder for %s: %w", en.path, err)
			}
		}
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(en.path))); err != nil {
			if errors.Is(err, fs.ErrExist) {
				skipped = append(skipped, Skipped{Path: en.path, Reason: "collides with another entry"})
				continue
			}
			return nil, nil, fmt.Errorf("create symlink %s: %w", en.path, err)
		}
		files = append(files, File{Path: en.path, BlobID: en.hash.String(), Mode: fs.ModeSymlink | 0o777, Size: int64(len(target)), Sum: treehash.SumOf([]byte(target))})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	e.progress(Progress{URL: url, Phase: "write", Objects: len(files)})
	return files, skipped, nil
}

// writeBlob creates p (which must not exist) with the blob's content.
func writeBlob(st storer.EncodedObjectStorer, h plumbing.Hash, p string, perm fs.FileMode) (int64, string, error) {
	obj, err := st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return 0, "", err
	}
	rd, err := obj.Reader()
	if err != nil {
		return 0, "", err
	}
	defer rd.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, "", err
	}
	sum := treehash.NewSummer()
	n, err := io.Copy(io.MultiWriter(f, sum), rd)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != obj.Size() {
		err = fmt.Errorf("blob %s: wrote %d bytes, want %d", h, n, obj.Size())
	}
	return n, sum.Sum(), err
}

func readTarget(st storer.EncodedObjectStorer, h plumbing.Hash) (string, error) {
	obj, err := st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return "", err
	}
	if obj.Size() > maxSymlinkTarget {
		if _, ok := st.(verifiedStore); ok {
			// A forged object of the cache is no unsafe link: the
			// check names the store (review of red20).
			if err := drainBlob(st, h); err != nil {
				return "", err
			}
		}
		return "", nil // reported as unsafe by safeSymlink("")
	}
	rd, err := obj.Reader()
	if err != nil {
		return "", err
	}
	defer rd.Close()
	b, err := io.ReadAll(io.LimitReader(rd, maxSymlinkTarget+1))
	return string(b), err
}

// displayPath quotes a path from a repository when it holds characters that
// should not reach a terminal as they are.
func displayPath(p string) string {
	for _, r := range p {
		if !strconv.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// Tree is one folder of a commit in the cache (ReadTree): its files, and
// their contents on demand until Close.
type Tree struct {
	Commit string
	TreeID string
	// Files are the regular files under the folder, sorted by path (Size
	// 0, never Kept); links and files over the size limit are left out.
	Files []File
	// Bytes is what ReadTree received from the network (0 when all came
	// from the cache).
	Bytes int64
	// Diffed says Files are only those that differ from
	// FetchRequest.Against's (the cache held that tree): a file with the
	// same path, mode and blob in both is left out.
	Diffed bool
	g      *gathered
}

// ReadTree makes req's folder present in the cache as Materialize does
// (nothing fetched when the cache has it; with req.Tree and a cache that
// lacks the commit, one request for that tree over smart HTTP) and lists
// its files without writing them anywhere: the old side of `ctx changes`.
// The caller must Close the Tree.
func (e *Engine) ReadTree(ctx context.Context, req FetchRequest) (*Tree, error) {
	req.Have = nil
	g, err := e.gather(ctx, req, false)
	if err != nil {
		return nil, err
	}
	entries, _ := e.dropLarge(g.st, g.entries, req.KnownSize)
	t := &Tree{Commit: g.commit.String(), TreeID: g.treeID.String(), Bytes: g.bytes(), g: g, Diffed: g.diff != nil && g.diff.used}
	for _, en := range entries {
		if en.mode == filemode.Symlink || !en.mode.IsFile() {
			continue
		}
		t.Files = append(t.Files, File{Path: en.path, BlobID: en.hash.String(), Mode: fileMode(en.mode)})
	}
	sort.Slice(t.Files, func(i, j int) bool { return t.Files[i].Path < t.Files[j].Path })
	return t, nil
}

// Read returns the content of blob id, one of t's files'.
func (t *Tree) Read(id string) ([]byte, error) {
	if t.g == nil {
		return nil, errors.New("read from a closed tree")
	}
	obj, err := t.g.st.EncodedObject(plumbing.BlobObject, plumbing.NewHash(id))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", safetext.Clip(id, 0), err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, err)
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// Close releases the cache.
func (t *Tree) Close() {
	if t.g != nil {
		t.g.close()
		t.g = nil
	}
}
