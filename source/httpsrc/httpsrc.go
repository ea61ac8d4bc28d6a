// Package httpsrc is the https source kind: an http(s) URL, one page (HTML
// converted to markdown), an llms.txt index and the pages it links, or a
// .tar.gz/.zip archive (`path` a folder inside it); fetched into
// packages/<alias>, locked by the sha256: of the fetched snapshot.
package httpsrc

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
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/webdoc"
	"github.com/ctx-dev/ctx/webfetch"
)

// Name is the kind's name.
const Name = "https"

// Kind is the https kind.
type Kind struct{}

var _ source.Kind = Kind{}

func (Kind) Name() string    { return Name }
func (Kind) Locked() bool    { return true }
func (Kind) RevNoun() string { return "content" }

// CheckSpec: an http(s) URL; ttl, allowPrivateNetwork, tokenEnv and every
// limit but maxTotalBytes (a dir source's); no ref.
func (Kind) CheckSpec(s source.Spec) []jsonfile.Error {
	var errs []jsonfile.Error
	if u, err := url.Parse(s.Source); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, jsonfile.Error{Field: "source", Msg: safetext.Quote(s.Source) + " is not an http or https URL"})
	}
	if l := s.Limits; l != nil {
		if l.MaxTotalBytes != 0 {
			errs = append(errs, jsonfile.Error{Field: "limits.maxTotalBytes", Msg: "only a dir source has maxTotalBytes (an https source has maxBytes per document and maxArchiveBytes)"})
		}
		// Each limit has a ceiling, webfetch's and webdoc's: a manifest
		// may raise one, not lift it (red18 finding 3).
		wl := webfetch.Limits{MaxBytes: l.MaxBytes, MaxArchiveBytes: l.MaxArchiveBytes, MaxPages: l.MaxPages, MaxRedirects: l.MaxRedirects}
		if d, err := source.ParseDuration(l.Timeout); l.Timeout != "" && err == nil {
			wl.Timeout = d
		}
		for _, p := range wl.Problems() {
			errs = append(errs, jsonfile.Error{Field: "limits." + p.Field, Msg: p.Msg})
		}
		if l.MaxFiles > webdoc.CeilingMaxFiles {
			errs = append(errs, jsonfile.Error{Field: "limits.maxFiles", Msg: fmt.Sprintf("maxFiles is %d: it may be at most %d, the most a source may raise it to", l.MaxFiles, webdoc.CeilingMaxFiles)})
		}
	}
	return append(errs, source.Foreign(s, source.FieldTTL|source.FieldAllowPrivateNetwork|source.FieldTokenEnv|source.FieldLimits)...)
}

var sha256RevRE = lazyre.New(`^sha256:[0-9a-f]{64}$`)

// CheckPin: an https entry pins a content hash and no tree.
func (Kind) CheckPin(rev, tree string) []jsonfile.Error {
	var errs []jsonfile.Error
	if !sha256RevRE().MatchString(rev) {
		errs = append(errs, jsonfile.Error{Field: "rev", Msg: safetext.Quote(rev) + " must be sha256: and 64 lower-case hexadecimal digits"})
	}
	if tree != "" {
		errs = append(errs, jsonfile.Error{Field: "tree", Msg: "an https entry has no tree; delete the field"})
	}
	return errs
}

// Provenance: its URL, path, short content hash and fetch date.
func (Kind) Provenance(o source.Origin, code func(string) string) []string {
	meta := o.Where(code)
	if o.Rev != "" {
		meta = append(meta, "content "+code(naming.ShortRev(o.Rev, 7)))
	}
	if !o.Fetched.IsZero() {
		meta = append(meta, "fetched "+o.Fetched.UTC().Format("2006-01-02"))
	}
	return meta
}

var _ source.Fetcher = Kind{}

// Resolve and Fetch fetch documents over http(s) through the workspace's
// webfetch Client and turn them into files with webdoc.
//
// Resolve trusts a locked snapshot for its spec's TTL without any request
// (unless the request asks for a refresh: update --refresh); once the TTL
// has expired it revalidates it with a conditional request (a 304 keeps
// the locked rev, and the lock stays as it is); with nothing locked it
// fetches. Fetch installs the snapshot of r.Want from the cache, or
// fetches it again on a machine that lacks it: content that is not the
// locked one is a drift error.

// webRequest is the request of req's spec, without Prev.
func webRequest(env source.Env, req source.Request) (webfetch.Request, error) {
	s := req.Spec
	r := webfetch.Request{URL: s.Source, Form: webdoc.Detect(s.Source, "")}
	if s.TokenEnv != "" || s.AllowPrivateNetwork {
		// A committed spec's are the user's only where the user allowed
		// them (project.CheckSource): nothing is sent otherwise.
		if err := env.Allowed(*s); err != nil {
			return r, err
		}
		r.AllowPrivate = s.AllowPrivateNetwork
	}
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
		if env.Getenv != nil {
			tok, ok = env.Getenv(s.TokenEnv)
		}
		if (!ok || tok == "") && env.Adding {
			return r, fmt.Errorf("--token-env names the environment variable %s, but it is not set: set it to the token for %s, or add the source without --token-env",
				s.TokenEnv, safetext.Quote(s.Source))
		}
		if !ok || tok == "" {
			return r, fmt.Errorf("tokenEnv names the environment variable %s, but it is not set: set it to the token for %s, or remove tokenEnv from %s",
				s.TokenEnv, safetext.Quote(s.Source), env.Manifest)
		}
		r.Token = tok
	}
	if progress := env.Progress; progress != nil {
		alias, src := req.Alias, s.Source
		r.Progress = func(p webfetch.Progress) {
			progress(alias, gitengine.Progress{Label: alias, URL: src, Phase: gitengine.PhaseDownload, Objects: p.Bodies, Bytes: p.Bytes})
		}
	}
	return r, nil
}

// expired reports whether the locked snapshot of r must be revalidated:
// it is not r's spec's, or its TTL has run out.
func expired(r source.Request, at time.Time) bool {
	e := r.Locked
	if e == nil || e.Kind != Name || !sameSpec(r.Spec, e) || e.Fetched.IsZero() {
		return true
	}
	return at.Sub(e.Fetched) >= r.Spec.TTLOf()
}

// sameSpec reports whether the lock entry e was made for spec s.
func sameSpec(s *source.Spec, e *lockfile.Entry) bool {
	return s != nil && e != nil && s.Source == e.Source && s.Path == e.Path && s.Ref == e.Ref
}

// resolve is asked by update, outdated and add, and by install for a spec
// the lock does not pin: what the server has now is what they want, so a
// locked snapshot this machine has not cached is fetched again (and may
// move the lock) rather than be a drift error.
func (Kind) Resolve(ctx context.Context, env source.Env, r source.Request) (source.Resolved, error) {
	c := env.Web()
	var prev *webfetch.Snapshot
	if r.Locked != nil && r.Locked.Kind == Name && sameSpec(r.Spec, r.Locked) {
		prev, _ = c.Cached(r.Locked.Rev)
	}
	if prev != nil && !r.Refresh && !expired(r, time.Now().UTC().Truncate(time.Second)) {
		return source.Resolved{Rev: r.Locked.Rev}, nil // trusted for the TTL: no request
	}
	req, err := webRequest(env, r)
	if err != nil {
		return source.Resolved{}, err
	}
	req.Prev = prev
	snap, err := c.Fetch(ctx, req)
	if err != nil {
		return source.Resolved{}, err
	}
	return source.Resolved{Rev: snap.Rev, Carry: snap, Revalidated: prev != nil && snap.Rev == prev.Rev}, nil
}

func (Kind) Fetch(ctx context.Context, env source.Env, r source.Request, stage string) (*source.Fetched, error) {
	c := env.Web()
	snap, _ := r.Carry.(*webfetch.Snapshot)
	if snap == nil || snap.Rev != r.Want {
		var err error
		snap, err = c.Cached(r.Want)
		if err != nil {
			// Not in this machine's cache (a teammate's lock): fetch it
			// again, and it must be what the lock says.
			if r.Spec == nil {
				return nil, err
			}
			req, err := webRequest(env, r)
			if err != nil {
				return nil, err
			}
			if snap, err = c.Fetch(ctx, req); err != nil {
				return nil, err
			}
			if snap.Rev != r.Want {
				return nil, fmt.Errorf("%s now serves other content than the lock pins (locked content %s, served content %s): run `ctx update %s` to accept the change",
					safetext.Quote(r.Spec.Source), naming.ShortRev(r.Want, 12), naming.ShortRev(snap.Rev, 12), r.Alias)
			}
		}
	}
	f := &source.Fetched{
		Entry: lockfile.Entry{Kind: Name, Rev: snap.Rev, URL: snap.FinalURL, ETag: snap.ETag, LastModified: snap.LastModified,
			Fetched: snap.Fetched.UTC().Truncate(time.Second)},
		Bytes: snap.BodyBytes,
	}
	if f.Entry.URL == "" {
		f.Entry.URL = snap.URL
	}
	if err := os.Mkdir(stage, 0o755); err != nil {
		return nil, err
	}
	var err error
	if snap.Form == webfetch.FormArchive {
		err = extract(c, r, snap, stage, f)
	} else {
		maxFiles := 0
		if r.Spec != nil && r.Spec.Limits != nil {
			maxFiles = r.Spec.Limits.MaxFiles
		}
		err = pages(c, snap, stage, maxFiles, f)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// pages writes each item of a document or an llms.txt snapshot as a
// markdown page at its webdoc.PagePath. Where the pages go follows an
// archive's rules (webdoc.Layout, planned before anything is written): a
// page whose path is too long or too deep is skipped with its reason, and
// the pages with the folders they make may not pass maxFiles (the
// source's limit, or webdoc.DefaultMaxFiles). A page whose path another
// took is skipped. When every page is skipped, the source fails.
func pages(c *webfetch.Client, snap *webfetch.Snapshot, stage string, maxFiles int, f *source.Fetched) error {
	type page struct {
		it  webfetch.Item
		u   *url.URL
		rel string
	}
	layout := webdoc.NewLayout(maxFiles)
	var todo []page
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
		if layout.Has(rel) {
			f.Skipped = append(f.Skipped, source.Skipped{Path: rel, Reason: "another page of " + safetext.Quote(final) + " has this path"})
			continue
		}
		skip, over := layout.Add(rel)
		if skip != "" {
			f.Skipped = append(f.Skipped, source.Skipped{Path: rel, Reason: skip})
			continue
		}
		if over {
			return fmt.Errorf("the pages of %s would make more than %d files and folders (the limit); raise the source's \"maxFiles\" limit if they are all wanted",
				safetext.Quote(naming.RedactURL(snap.URL)), layout.Max())
		}
		todo = append(todo, page{it, u, rel})
	}
	if len(todo) == 0 && len(f.Skipped) > 0 {
		s := f.Skipped[0]
		return fmt.Errorf("no page of %s can be installed: %s: %s", safetext.Quote(naming.RedactURL(snap.URL)), safetext.Clip(s.Path, 0), s.Reason)
	}
	root, err := os.OpenRoot(stage)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, p := range todo {
		body, err := blob(c, p.it)
		if err != nil {
			return err
		}
		md, err := webdoc.Convert(p.u, p.it.ContentType, body)
		if err != nil {
			return err
		}
		if dir := path.Dir(p.rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := root.WriteFile(p.rel, md, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// blob reads an item's body from the cache (webfetch bounded its size).
func blob(c *webfetch.Client, it webfetch.Item) ([]byte, error) {
	r, err := c.Open(it.Blob)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, it.Size+1))
}

// extract unpacks an archive snapshot's body into stage, under the spec's
// sub-path, within its limits.
func extract(c *webfetch.Client, req source.Request, snap *webfetch.Snapshot, stage string, f *source.Fetched) error {
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
	r, err := c.Open(it.Blob)
	if err != nil {
		return err
	}
	defer r.Close()
	var lim webdoc.ArchiveLimits
	sub := ""
	if s := req.Spec; s != nil {
		sub = s.Path
		if s.Limits != nil {
			lim.MaxFiles, lim.MaxBytes = s.Limits.MaxFiles, s.Limits.MaxArchiveBytes
		}
	} else if req.Target != nil {
		sub = req.Target.Path
	}
	_, _, skipped, err := webdoc.Extract(r, it.Size, format, sub, stage, lim)
	for _, s := range skipped {
		f.Skipped = append(f.Skipped, source.Skipped{Path: s.Path, Reason: s.Reason})
	}
	return err
}
