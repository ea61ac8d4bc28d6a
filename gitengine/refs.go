package gitengine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
)

// ListRefs asks the remote what it has (one upload-pack advertisement,
// which the Engine remembers) or lists a local repository's refs.
func (e *Engine) ListRefs(ctx context.Context, rawURL string) (*Remote, error) {
	r, err := parseRemote(rawURL)
	if err != nil {
		return nil, err
	}
	if r.local != "" {
		st, _, err := e.openLocalRead(r)
		if err != nil {
			return nil, err
		}
		return localRefs(r, st)
	}
	rem, err := e.advertised(ctx, r)
	if err != nil {
		return nil, err
	}
	out := *rem // rem is shared by every caller: hand out a copy
	out.Refs = slices.Clone(rem.Refs)
	return &out, nil
}

// advertised returns what remote r advertises, asked for once in the
// Engine's lifetime (see memo): the callers that resolve refs of one
// remote, concurrently or one after another, share one request. The
// result is shared: do not modify it.
func (e *Engine) advertised(ctx context.Context, r *remote) (*Remote, error) {
	rem, err := e.mem.refs.do(ctx, refsKey(r)+e.guardKey(r), func() (*Remote, error) {
		c, err := e.connect(ctx, r, "list refs")
		if err != nil {
			return nil, err
		}
		defer c.close()
		rem := remoteFromAdv(c)
		e.progress(Progress{URL: naming.RedactURL(r.raw), Phase: "refs", Objects: len(rem.Refs), Bytes: c.received.Load()})
		return rem, nil
	})
	if err != nil {
		return nil, classify(r.raw, "list refs", err, false) // a waiter's own context error is not classified yet
	}
	return rem, nil
}

// refsKey is the key of r's advertisement in the Engine's memory: the
// repository (cacheKey) and the credentials the URL carries, which may
// see different refs (and, for a guarded call, guardKey).
func refsKey(r *remote) string {
	return cacheKey(r) + "\x00" + r.user + "\x00" + r.pass
}

// remoteFromAdv turns an advertisement into a Remote.
func remoteFromAdv(c *conn) *Remote {
	adv := c.adv
	rem := &Remote{URL: naming.RedactURL(c.r.raw)}
	for name, h := range adv.References {
		if name == "HEAD" {
			continue
		}
		ref := Ref{Name: name, Hash: h.String()}
		if p, ok := adv.Peeled[name]; ok {
			ref.Peel = p.String()
		}
		rem.Refs = append(rem.Refs, ref)
	}
	sort.Slice(rem.Refs, func(i, j int) bool { return rem.Refs[i].Name < rem.Refs[j].Name })
	for _, v := range adv.Capabilities.Get(capability.SymRef) {
		if src, dst, ok := strings.Cut(v, ":"); ok && src == "HEAD" {
			rem.Head = dst
		}
	}
	if rem.Head == "" && adv.Head != nil {
		rem.Head = headByHash(rem.Refs, adv.Head.String())
	}
	return rem
}

// headByHash guesses HEAD's branch from its hash when the server does not
// advertise the symref: the only branch at that hash, else master or main.
func headByHash(refs []Ref, h string) string {
	var cands []string
	for _, r := range refs {
		if strings.HasPrefix(r.Name, "refs/heads/") && r.Hash == h {
			cands = append(cands, r.Name)
		}
	}
	if len(cands) == 1 {
		return cands[0]
	}
	for _, want := range []string{"refs/heads/master", "refs/heads/main"} {
		for _, c := range cands {
			if c == want {
				return c
			}
		}
	}
	return ""
}

// localRefs lists a local repository's references like ls-remote would.
func localRefs(r *remote, st storage.Storer) (*Remote, error) {
	rem := &Remote{URL: r.raw}
	iter, err := st.IterReferences()
	if err != nil {
		return nil, newError(KindOther, r.raw, "list refs", err, "")
	}
	defer iter.Close()
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name().String()
		if name == "HEAD" {
			return nil
		}
		h := ref.Hash()
		if ref.Type() == plumbing.SymbolicReference {
			res, err := storer.ResolveReference(st, ref.Name())
			if err != nil {
				return nil // dangling symref: ls-remote omits it too
			}
			h = res.Hash()
		}
		out := Ref{Name: name, Hash: h.String()}
		if tag, err := object.GetTag(st, h); err == nil {
			if c, err := peelTag(st, tag); err == nil {
				out.Peel = c.String()
			}
		}
		rem.Refs = append(rem.Refs, out)
		return nil
	})
	if err != nil {
		return nil, newError(KindOther, r.raw, "list refs", err, "")
	}
	sort.Slice(rem.Refs, func(i, j int) bool { return rem.Refs[i].Name < rem.Refs[j].Name })
	if head, err := st.Reference(plumbing.HEAD); err == nil {
		if head.Type() == plumbing.SymbolicReference {
			rem.Head = head.Target().String()
		} else {
			rem.Head = headByHash(rem.Refs, head.Hash().String())
		}
	}
	return rem, nil
}

// peelTag follows a chain of annotated tags to what it finally points to.
func peelTag(st storer.EncodedObjectStorer, tag *object.Tag) (plumbing.Hash, error) {
	for i := 0; i < 16; i++ {
		if tag.TargetType != plumbing.TagObject {
			return tag.Target, nil
		}
		next, err := object.GetTag(st, tag.Target)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tag = next
	}
	return plumbing.ZeroHash, errors.New("tag chain too long")
}

// resolveIn resolves ref against an advertisement (or a local listing), as
// git rev-parse would: "" or HEAD is the default branch (else main, else
// master); a full ref name; a tag, then a branch (both: the tag, with a
// warning); a full or abbreviated commit id. lookup, when set, resolves
// abbreviated commit ids that are not tips.
func resolveIn(rem *Remote, rawURL, ref string, warn func(string), lookup func(prefix string) ([]string, error)) (Resolved, error) {
	byName := map[string]Ref{}
	for _, r := range rem.Refs {
		byName[r.Name] = r
	}
	commitOf := func(r Ref) Resolved {
		if r.Peel != "" {
			return Resolved{Ref: r.Name, Commit: r.Peel}
		}
		return Resolved{Ref: r.Name, Commit: r.Hash}
	}
	notFound := func(what string) error {
		return newError(KindRefNotFound, rawURL, "resolve", fmt.Errorf("%s", what), refsHint(rem))
	}
	ref = strings.TrimSpace(ref)
	if ref == "" || ref == "HEAD" {
		if rem.Head == "" {
			for _, name := range []string{"refs/heads/main", "refs/heads/master"} {
				if r, ok := byName[name]; ok {
					return commitOf(r), nil
				}
			}
			return Resolved{}, notFound("the remote does not say which branch HEAD is, and it has no main or master branch")
		}
		r, ok := byName[rem.Head]
		if !ok {
			return Resolved{}, notFound(fmt.Sprintf("HEAD points to %s, which does not exist", safetext.Clip(rem.Head, 0)))
		}
		return commitOf(r), nil
	}
	if strings.HasPrefix(ref, "refs/") {
		if r, ok := byName[ref]; ok {
			return commitOf(r), nil
		}
		return Resolved{}, notFound("no ref " + safetext.Clip(ref, 0))
	}
	var hits []Ref
	for _, name := range refNames(ref) {
		if r, ok := byName[name]; ok {
			hits = append(hits, r)
		}
	}
	if len(hits) > 0 {
		if len(hits) > 1 && warn != nil {
			warn(fmt.Sprintf("%s is both a tag and a branch; using the tag (write refs/heads/%s for the branch)", safetext.Quote(ref), safetext.Clip(ref, 0)))
		}
		return commitOf(hits[0]), nil
	}
	if IsCommitID(ref) {
		ref = strings.ToLower(ref)
		if len(ref) == 40 {
			return Resolved{Commit: ref}, nil
		}
		seen := map[string]bool{}
		for _, r := range rem.Refs {
			for _, h := range []string{r.Hash, r.Peel} {
				if h != "" && strings.HasPrefix(h, ref) {
					seen[h] = true
				}
			}
		}
		if len(seen) == 0 && lookup != nil {
			more, err := lookup(ref)
			if err != nil {
				return Resolved{}, err
			}
			for _, h := range more {
				seen[h] = true
			}
		}
		switch len(seen) {
		case 1:
			for h := range seen {
				return Resolved{Commit: h}, nil
			}
		case 0:
			return Resolved{}, newError(KindRefNotFound, rawURL, "resolve", fmt.Errorf("no branch, tag or known commit matches %s", safetext.Quote(ref)),
				"an abbreviated commit id only resolves against branch and tag tips and commits already fetched; give the full 40-character id")
		default:
			return Resolved{}, newError(KindRefNotFound, rawURL, "resolve", fmt.Errorf("commit id %s is ambiguous", safetext.Quote(ref)), "give more characters of the commit id")
		}
	}
	return Resolved{}, notFound("no branch or tag named " + safetext.Quote(ref))
}

// refsHint names up to 10 of rem's branches and tags, for an error that
// says a ref is not there ("" when it has none).
func refsHint(rem *Remote) string {
	var names []string
	for _, x := range rem.Refs {
		if n, ok := shortRefName(x.Name); ok {
			names = append(names, n)
		}
		if len(names) == 10 {
			names = append(names, "…")
			break
		}
	}
	if len(names) == 0 {
		return "" // newError's default hint
	}
	return "give a branch, tag or commit of the repository; it has: " + strings.Join(names, ", ")
}

// IsCommitID reports whether ref has the form of a full or abbreviated
// commit id (4 to 40 hex digits), which Resolve takes for one when no
// branch or tag has that name: a manifest's ref pinned to a commit.
func IsCommitID(ref string) bool {
	ref = strings.TrimSpace(ref)
	return isHex(ref) && len(ref) >= 4 && len(ref) <= 40
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// Resolve turns ref into a commit, as git rev-parse would: "" or HEAD for
// the remote's default branch (else main, else master), a full ref name, a
// tag before a branch of the same name (with a warning), an annotated tag
// peeled, or a full or abbreviated commit SHA. It is ctx's one way from a
// ref to a commit. A full SHA of a remote costs no request (the fetch
// checks it); anything else is resolved against the remote's advertisement,
// which the Engine asks for once in its lifetime. An unknown ref's error
// names refs the repository has. A local repository is read in place.
func (e *Engine) Resolve(ctx context.Context, rawURL, ref string) (Resolved, error) {
	r, err := parseRemote(rawURL)
	if err != nil {
		return Resolved{}, err
	}
	if r.local != "" {
		st, _, err := e.openLocalRead(r)
		if err != nil {
			return Resolved{}, err
		}
		rem, err := localRefs(r, st)
		if err != nil {
			return Resolved{}, err
		}
		res, err := resolveIn(rem, rawURL, ref, e.warn, func(prefix string) ([]string, error) {
			return commitsWithPrefix(st, prefix)
		})
		if err != nil {
			return Resolved{}, err
		}
		return checkCommit(st, rawURL, res)
	}
	if id := strings.TrimSpace(ref); len(id) == 40 && isHex(id) {
		return Resolved{Commit: strings.ToLower(id)}, nil
	}
	rem, err := e.advertised(ctx, r)
	if err != nil {
		return Resolved{}, err
	}
	return resolveIn(rem, rawURL, ref, e.warn, func(prefix string) ([]string, error) {
		st, unlock, err := e.openCache(ctx, r, false)
		if err != nil {
			return nil, nil // no cache: nothing more to offer
		}
		defer unlock()
		defer st.Close()
		// The cache only adds candidates; a pack being written by another
		// process must not fail the resolve.
		more, _ := commitsWithPrefix(st, prefix)
		return more, nil
	})
}

// checkCommit verifies that a resolved id names a commit in st (peeling a
// tag when a bare SHA names one).
func checkCommit(st storer.EncodedObjectStorer, rawURL string, res Resolved) (Resolved, error) {
	h := plumbing.NewHash(res.Commit)
	for i := 0; i < 16; i++ {
		obj, err := st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			if res.Ref == "" && i == 0 {
				// a commit id given as the ref: gone as a lock's is
				return Resolved{}, commitGone(rawURL, h, nil, "")
			}
			return Resolved{}, newError(KindRefNotFound, rawURL, "resolve", fmt.Errorf("commit %s not found", res.Commit), "")
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			res.Commit = h.String()
			return res, nil
		case plumbing.TagObject:
			tag, err := object.DecodeTag(st, obj)
			if err != nil {
				return Resolved{}, newError(KindOther, rawURL, "resolve", err, "")
			}
			h = tag.Target
		default:
			return Resolved{}, newError(KindRefNotFound, rawURL, "resolve", fmt.Errorf("%s is a %s, not a commit", h, obj.Type()), "point the ref at a commit")
		}
	}
	return Resolved{}, newError(KindRefNotFound, rawURL, "resolve", errors.New("tag chain too long"), "")
}

// commitsWithPrefix lists commit ids in st starting with prefix.
func commitsWithPrefix(st storer.EncodedObjectStorer, prefix string) ([]string, error) {
	iter, err := st.IterEncodedObjects(plumbing.CommitObject)
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	var out []string
	err = iter.ForEach(func(o plumbing.EncodedObject) error {
		if h := o.Hash().String(); strings.HasPrefix(h, prefix) {
			out = append(out, h)
		}
		return nil
	})
	return out, err
}

// refNames is the full names a ref may stand for, in git's rev-parse order
// (a tag before a branch: Resolve warns when both are there); a name under
// refs/ stands for itself.
func refNames(ref string) []string {
	if strings.HasPrefix(ref, "refs/") {
		return []string{ref}
	}
	return []string{"refs/tags/" + ref, "refs/heads/" + ref}
}

// shortRefName is a branch's or tag's short name (refNames' inverse), and
// false for any other name.
func shortRefName(name string) (string, bool) {
	if n, ok := strings.CutPrefix(name, "refs/heads/"); ok {
		return n, true
	}
	if n, ok := strings.CutPrefix(name, "refs/tags/"); ok {
		return n, true
	}
	return "", false
}
