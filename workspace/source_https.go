package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/webdoc"
	"github.com/ctx-dev/ctx/webfetch"
)

// httpsSource fetches documents over http(s) through the workspace's
// webfetch Client (its cache is the shared one, under <cache>/https/) and
// turns them into files with webdoc.
//
// resolve trusts a locked snapshot for its spec's TTL without any request
// (unless the task asks for a refresh: update --refresh); once the TTL has
// expired it revalidates it with a conditional request (a
// 304 keeps the locked rev, and the lock stays as it is); with nothing
// locked it fetches. fetch installs the snapshot of t.want from the cache,
// or fetches it again on a machine that lacks it: content that is not the
// locked one is a drift error.
type httpsSource struct{ w *Workspace }

// web returns the workspace's webfetch Client, made on first use.
func (w *Workspace) web() *webfetch.Client {
	w.webOnce.Do(func() {
		w.webc = webfetch.New(webfetch.Options{
			CacheDir: w.opts.EngineOptions.CacheDir,
			Warn:     func(msg string) { w.log("warning: %s", msg) },
		})
	})
	return w.webc
}

// webRequest is the request of t's spec, without Prev.
func (h httpsSource) webRequest(t *task) (webfetch.Request, error) {
	s := t.spec
	r := webfetch.Request{URL: s.Source, Form: webdoc.Detect(s.Source, ""), AllowPrivate: s.AllowPrivateNetwork}
	if l := s.Limits; l != nil {
		r.Limits = webfetch.Limits{MaxBytes: l.MaxBytes, MaxArchiveBytes: l.MaxArchiveBytes, MaxPages: l.MaxPages, MaxRedirects: l.MaxRedirects}
		if l.Timeout != "" {
			d, err := source.ParseDuration(l.Timeout)
			if err != nil {
				return r, fmt.Errorf("limits.timeout: %w", err)
			}
			r.Limits.Timeout = d
		}
	}
	if s.TokenEnv != "" {
		var tok string
		ok := false
		if h.w.opts.Getenv != nil {
			tok, ok = h.w.opts.Getenv(s.TokenEnv)
		}
		if !ok || tok == "" {
			return r, fmt.Errorf("tokenEnv names the environment variable %s, but it is not set: set it to the token for %s, or remove tokenEnv from %s",
				s.TokenEnv, safetext.Quote(s.Source), project.Rel(project.ManifestName))
		}
		r.Token = tok
	}
	if progress := h.w.opts.Progress; progress != nil {
		alias, src := t.alias, s.Source
		r.Progress = func(p webfetch.Progress) {
			progress(alias, gitengine.Progress{Label: alias, URL: src, Phase: gitengine.PhaseDownload, Objects: p.Bodies, Bytes: p.Bytes})
		}
	}
	return r, nil
}

// expired reports whether the locked snapshot of t must be revalidated:
// it is not t's spec's, or its TTL has run out.
func expired(t *task, at time.Time) bool {
	e := t.locked
	if e == nil || e.Kind != project.KindHTTPS || !sameSpec(t.spec, e) || e.Fetched.IsZero() {
		return true
	}
	return at.Sub(e.Fetched) >= t.spec.TTLOf()
}

// resolve is asked by update, outdated and add, and by install for a spec
// the lock does not pin: what the server has now is what they want, so a
// locked snapshot this machine has not cached is fetched again (and may
// move the lock) rather than be a drift error.
func (h httpsSource) resolve(ctx context.Context, t *task) error {
	c := h.w.web()
	var prev *webfetch.Snapshot
	if t.locked != nil && t.locked.Kind == project.KindHTTPS && sameSpec(t.spec, t.locked) {
		prev, _ = c.Cached(t.locked.Rev)
	}
	if prev != nil && !t.refresh && !expired(t, now()) {
		t.rev = t.locked.Rev // trusted for the TTL: no request
		return nil
	}
	r, err := h.webRequest(t)
	if err != nil {
		return err
	}
	r.Prev = prev
	snap, err := c.Fetch(ctx, r)
	if err != nil {
		return err
	}
	t.rev, t.snap = snap.Rev, snap
	t.revalidated = prev != nil && snap.Rev == prev.Rev
	return nil
}

func (h httpsSource) fetch(ctx context.Context, t *task, stage string) (*fetched, error) {
	c := h.w.web()
	snap := t.snap
	if snap == nil || snap.Rev != t.want {
		var err error
		snap, err = c.Cached(t.want)
		if err != nil {
			// Not in this machine's cache (a teammate's lock): fetch it
			// again, and it must be what the lock says.
			if t.spec == nil {
				return nil, err
			}
			r, err := h.webRequest(t)
			if err != nil {
				return nil, err
			}
			if snap, err = c.Fetch(ctx, r); err != nil {
				return nil, err
			}
			if snap.Rev != t.want {
				return nil, fmt.Errorf("%s now serves other content than the lock pins (locked content %s, served content %s): run `ctx update %s` to accept the change",
					safetext.Quote(t.spec.Source), naming.ShortRev(t.want, 12), naming.ShortRev(snap.Rev, 12), t.alias)
			}
		}
	}
	f := &fetched{
		entry: lockfile.Entry{Kind: project.KindHTTPS, Rev: snap.Rev, URL: snap.FinalURL, ETag: snap.ETag, LastModified: snap.LastModified,
			Fetched: snap.Fetched.UTC().Truncate(time.Second)},
		bytes: snap.BodyBytes,
		state: func(hash string, _ map[string]bool) (*pkgState, error) { return scanState(stage, snap.Rev, "", hash) },
	}
	if f.entry.URL == "" {
		f.entry.URL = snap.URL
	}
	if err := os.Mkdir(stage, 0o755); err != nil {
		return nil, err
	}
	var err error
	if snap.Form == webfetch.FormArchive {
		err = h.extract(t, snap, stage, f)
	} else {
		err = h.pages(snap, stage, f)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// pages writes each item of a document or an llms.txt snapshot as a
// markdown page at its webdoc.PagePath. A page whose path another took is
// skipped.
func (h httpsSource) pages(snap *webfetch.Snapshot, stage string, f *fetched) error {
	root, err := os.OpenRoot(stage)
	if err != nil {
		return err
	}
	defer root.Close()
	taken := map[string]bool{}
	for _, it := range snap.Items {
		final := it.FinalURL
		if final == "" {
			final = it.URL
		}
		u, err := url.Parse(final)
		if err != nil {
			return fmt.Errorf("page %s: %w", safetext.Quote(final), err)
		}
		rel, err := webdoc.PagePath(u)
		if err != nil {
			return err
		}
		if taken[rel] {
			f.skipped = append(f.skipped, skippedFile{rel, "another page of " + safetext.Quote(final) + " has this path"})
			continue
		}
		taken[rel] = true
		body, err := h.blob(it)
		if err != nil {
			return err
		}
		md, err := webdoc.Convert(u, it.ContentType, body)
		if err != nil {
			return err
		}
		if dir := path.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := root.WriteFile(rel, md, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// blob reads an item's body from the cache (webfetch bounded its size).
func (h httpsSource) blob(it webfetch.Item) ([]byte, error) {
	r, err := h.w.web().Open(it.Blob)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, it.Size+1))
}

// extract unpacks an archive snapshot's body into stage, under the spec's
// sub-path, within its limits.
func (h httpsSource) extract(t *task, snap *webfetch.Snapshot, stage string, f *fetched) error {
	if len(snap.Items) == 0 {
		return errors.New("the archive snapshot holds no file")
	}
	it := snap.Items[0]
	final := it.FinalURL
	if final == "" {
		final = it.URL
	}
	format, err := webdoc.ArchiveFormat(final, it.ContentType)
	if err != nil {
		return err
	}
	r, err := h.w.web().Open(it.Blob)
	if err != nil {
		return err
	}
	defer r.Close()
	var lim webdoc.ArchiveLimits
	sub := ""
	if s := t.spec; s != nil {
		sub = s.Path
		if s.Limits != nil {
			lim.MaxFiles, lim.MaxBytes = s.Limits.MaxFiles, s.Limits.MaxArchiveBytes
		}
	} else if t.target != nil {
		sub = t.target.Path
	}
	_, _, skipped, err := webdoc.Extract(r, it.Size, format, sub, stage, lim)
	for _, s := range skipped {
		f.skipped = append(f.skipped, skippedFile{s.Path, s.Reason})
	}
	return err
}
