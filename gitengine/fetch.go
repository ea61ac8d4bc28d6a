package gitengine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// How a remote fetch works (protocol v0, which is all go-git speaks):
//
//  1. One advertisement (GET info/refs over HTTP) gives refs and capabilities.
//  2. Trees: want the commit, deepen 1, filter blob:none when advertised,
//     never tags. Recently fetched commits go along as have + shallow, with
//     thin-pack, so an update gets only the new commit and changed trees.
//  3. Blobs: want exactly the blob ids under the sub-path the cache lacks,
//     with no haves. Smart HTTP serves any reachable object by id; a server
//     that refuses (stateful git://, ssh without allowAnySHA1InWant) gets a
//     whole-snapshot depth-1 fetch instead, with a warning.
//  4. A commit that is not a tip and is refused is looked for by deepening
//     the ref it came from (deepenFirst, then deepenMax commits).
//
// Complete packs are stored as pack files (with an index) in the cache;
// thin packs are resolved against the cache and stored object by object.
// Local repositories (paths, file://) skip all of this: they are read in
// place with go-git, without a transport or a git binary.

// Depths tried, in turn, to find a refused non-tip commit below its ref's tip.
const (
	deepenFirst = 32
	deepenMax   = 256
)

// newRequest builds an upload-pack request from the server's capabilities:
// no thin packs unless the caller offers haves, no
// multi_ack (one request, "done"), no progress text, never tags.
func newRequest(adv *packp.AdvRefs) *packp.UploadPackRequest {
	req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
	req.Capabilities.Delete(capability.ThinPack)
	req.Capabilities.Delete(capability.MultiACK)
	req.Capabilities.Delete(capability.MultiACKDetailed)
	if adv.Capabilities.Supports(capability.NoProgress) {
		_ = req.Capabilities.Set(capability.NoProgress)
	}
	return req
}

// hasFilter reports whether the server advertises `filter`.
func hasFilter(adv *packp.AdvRefs) bool { return adv.Capabilities.Supports(capability.Filter) }

// fetchCommit brings commit's commit object and trees into st, depth 1.
// Unless full, it asks for no blobs when the server can filter and offers
// recently fetched commits as haves, so an update only moves new trees.
// With full it asks for every blob and offers nothing (a blob:none cache
// lacks blobs the haves reach). A commit the server refuses because it is
// not a tip is looked for by deepening ref a bounded number of commits.
func (e *Engine) fetchCommit(ctx context.Context, c *conn, st *filesystem.Storage, commit plumbing.Hash, ref string, full bool) error {
	phase := "trees"
	if full || !hasFilter(c.adv) {
		phase = "blobs"
	}
	if !full && !hasFilter(c.adv) {
		e.warn(fmt.Sprintf("%s: the server does not support partial fetches (filter); fetching the whole snapshot at depth 1", naming.RedactURL(c.r.raw)))
	}
	err := e.fetchDepth(ctx, c, st, commit, 1, phase, full)
	if err == nil {
		return nil
	}
	if !c.refused(err, c.advertises(commit)) {
		return err
	}
	tip, ok := c.refHash(ref)
	if !ok {
		return e.refusedError(c, commit, ref, err)
	}
	for _, depth := range []int{deepenFirst, deepenMax} {
		if derr := e.fetchDepth(ctx, c, st, tip, depth, phase, full); derr != nil {
			return classify(c.r.raw, "fetch", derr, c.sentCreds)
		}
		if st.HasEncodedObject(commit) == nil {
			e.warn(fmt.Sprintf("%s: commit %s is not a branch or tag tip and the server serves only tips; fetched %d commits of %s to find it", naming.RedactURL(c.r.raw), commit, depth, ref))
			return nil
		}
	}
	return e.refusedError(c, commit, ref, err)
}

func (e *Engine) refusedError(c *conn, commit plumbing.Hash, ref string, err error) error {
	var deep string
	if ref != "" {
		deep = fmt.Sprintf("it was not found within %d commits of %s either", deepenMax, ref)
	}
	if c.r.isHTTP() {
		// Smart HTTP serves any reachable commit, so a refusal means the
		// commit is not (or no longer) reachable from any ref.
		return commitGone(c.r.raw, commit, err, deep)
	}
	hint := "the server only serves branch and tag tips: ask its administrator to set uploadpack.allowReachableSHA1InWant, or pin a tip"
	if deep != "" {
		hint += "; " + deep
	}
	return newError(KindRefused, c.r.raw, "fetch", fmt.Errorf("commit %s: %w", commit, err), hint)
}

// refHash finds the advertised tip of ref: its name as given (HEAD), else
// the full names it stands for (refNames, in Resolve's order).
func (c *conn) refHash(ref string) (plumbing.Hash, bool) {
	if ref == "" {
		return plumbing.ZeroHash, false
	}
	for _, name := range append([]string{ref}, refNames(ref)...) {
		if h, ok := c.adv.Peeled[name]; ok {
			return h, true
		}
		if h, ok := c.adv.References[name]; ok {
			return h, true
		}
	}
	return plumbing.ZeroHash, false
}

// fetchDepth wants one commit at the given depth; see fetchCommit for full.
func (e *Engine) fetchDepth(ctx context.Context, c *conn, st *filesystem.Storage, want plumbing.Hash, depth int, phase string, full bool) error {
	req := newRequest(c.adv)
	req.Wants = []plumbing.Hash{want}
	if c.adv.Capabilities.Supports(capability.Shallow) {
		_ = req.Capabilities.Set(capability.Shallow)
		req.Depth = packp.DepthCommits(depth)
	}
	if !full && hasFilter(c.adv) {
		_ = req.Capabilities.Set(capability.Filter)
		req.Filter = packp.FilterBlobNone()
	}
	var haves []plumbing.Hash
	if !full {
		haves = knownCommits(st)
	}
	req.Haves = haves
	if len(haves) > 0 {
		// Only a thin pack leaves out the trees the haves already hold
		// (upload-pack marks uninteresting edges only for thin packs).
		// go-git hides thin-pack from the advertisement as unsupported;
		// every git server has it, and storePack resolves thin packs.
		_ = req.Capabilities.Set(capability.ThinPack)
	}
	if req.Capabilities.Supports(capability.Shallow) {
		// Everything in the cache came shallow: say so, so the server does
		// not assume we have the history below.
		req.Shallows = haves
	}
	if err := e.receivePack(ctx, c, st, req, phase); err != nil {
		return err
	}
	if st.HasEncodedObject(want) == nil {
		_ = recordCommit(st, want)
	}
	return nil
}

// fetchBlobs asks for exactly the given blobs (no haves: the server would
// leave out blobs reachable from them, which a blob:none cache lacks).
func (e *Engine) fetchBlobs(ctx context.Context, c *conn, st *filesystem.Storage, blobs []plumbing.Hash) error {
	req := newRequest(c.adv)
	req.Wants = blobs
	return e.receivePack(ctx, c, st, req, "blobs")
}

// fetchTree asks for tree and everything under it, its trees and blobs (a
// locked folder: FetchRequest.Tree): one want, no filter, no depth, no
// haves. Smart HTTP serves any reachable object by id, as for blobs.
func (e *Engine) fetchTree(ctx context.Context, c *conn, st *filesystem.Storage, tree plumbing.Hash) error {
	req := newRequest(c.adv)
	req.Wants = []plumbing.Hash{tree}
	return e.receivePack(ctx, c, st, req, "blobs")
}

// receivePack sends req and stores the pack it gets back.
func (e *Engine) receivePack(ctx context.Context, c *conn, st *filesystem.Storage, req *packp.UploadPackRequest, phase string) error {
	wctx, w, stop := e.watch(ctx)
	defer stop()
	resp, err := c.uploadPack(wctx, req)
	w.disarm()
	if err != nil {
		if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
			return nil
		}
		return cutShort(stalled(wctx, err))
	}
	defer resp.Close()
	pr := &progressReader{r: resp, e: e, url: naming.RedactURL(c.r.raw), phase: phase, w: w}
	if !c.r.isHTTP() {
		pr.total = &c.received // HTTP bytes are counted by the round tripper
	}
	var r io.Reader = pr
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		r = sideband.NewDemuxer(sideband.Sideband64k, pr)
	case req.Capabilities.Supports(capability.Sideband):
		r = sideband.NewDemuxer(sideband.Sideband, pr)
	}
	hr := &packHeaderReader{r: r}
	if err := storePack(st, hr, req.Capabilities.Supports(capability.ThinPack)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("receive pack: %w", cutShort(stalled(wctx, err)))
	}
	e.progress(Progress{URL: pr.url, Phase: phase, Objects: int(hr.objects()), Bytes: pr.n})
	return nil
}

// storePack adds a pack's objects to st. A complete pack is kept as a pack
// file (with its index, see writePack: no object is held whole in memory
// but deltas); a thin pack, whose deltas may name bases that are only in
// st, is resolved against st and stored object by object (go-git's parser,
// which holds each object whole: a thin pack comes only with haves, and
// haves go only with a commit's trees, or its whole snapshot from a server
// without filter; blobs by id are asked for without haves).
func storePack(st *filesystem.Storage, r io.Reader, thin bool) error {
	if !thin {
		_, err := writePack(st, r)
		return err
	}
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(r), st)
	if err != nil {
		return err
	}
	_, err = p.Parse()
	if errors.Is(err, packfile.ErrEmptyPackfile) {
		return nil
	}
	return err
}

// isRefusal reports whether err is the server refusing a want.
func isRefusal(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "not our ref") || strings.Contains(msg, "want not valid") ||
		strings.Contains(msg, "not a valid") || strings.Contains(msg, "unadvertised object")
}

// refused reports whether err means the server refused the request's wants.
// Over git:// (and some ssh servers) upload-pack refuses an unadvertised
// want by hanging up before the client has sent "done", so a dropped
// connection counts when what was wanted is not an advertised tip.
func (c *conn) refused(err error, advertised bool) bool {
	if isRefusal(err) {
		return true
	}
	if c.r.isHTTP() || advertised {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "broken pipe") || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "eof") || strings.Contains(msg, "sending done message")
}

// advertises reports whether h is an advertised tip (or peeled tag).
func (c *conn) advertises(h plumbing.Hash) bool {
	for _, v := range c.adv.References {
		if v == h {
			return true
		}
	}
	for _, v := range c.adv.Peeled {
		if v == h {
			return true
		}
	}
	return false
}

// progressReader counts bytes of one response and reports them.
type progressReader struct {
	r     io.Reader
	e     *Engine
	url   string
	phase string
	n     int64
	total *atomic.Int64
	last  int64
	w     *watchdog // armed while a read waits on the server
}

func (p *progressReader) Read(b []byte) (int, error) {
	p.w.arm()
	n, err := p.r.Read(b)
	if p.total != nil { // not HTTP, whose bytes the round tripper counts
		p.w.moved(n)
	}
	p.w.disarm()
	p.n += int64(n)
	if p.total != nil {
		p.total.Add(int64(n))
	}
	if p.n-p.last >= 256<<10 {
		p.last = p.n
		p.e.progress(Progress{URL: p.url, Phase: p.phase, Bytes: p.n})
	}
	return n, err
}

// packHeaderReader notes the object count from a pack's 12-byte header.
type packHeaderReader struct {
	r    io.Reader
	head [12]byte
	got  int
}

func (h *packHeaderReader) Read(b []byte) (int, error) {
	n, err := h.r.Read(b)
	if h.got < len(h.head) {
		h.got += copy(h.head[h.got:], b[:n])
	}
	return n, err
}

func (h *packHeaderReader) objects() uint32 {
	if h.got < 12 || string(h.head[:4]) != "PACK" {
		return 0
	}
	return binary.BigEndian.Uint32(h.head[8:12])
}

func (e *Engine) progress(p Progress) {
	if e.opts.Progress != nil {
		p.Label = e.label
		e.opts.Progress(p)
	}
}

func (e *Engine) warn(msg string) {
	if e.opts.Warn != nil {
		e.opts.Warn(e.label, msg)
	}
}
