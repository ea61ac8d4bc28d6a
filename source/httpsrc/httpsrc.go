// Package httpsrc is the https source kind: an http(s) URL, one page (HTML
// converted to markdown), an llms.txt index and the pages it links, or a
// .tar.gz/.zip archive (`path` a folder inside it); fetched into
// packages/<alias>, locked by the sha256: of the fetched snapshot.
package httpsrc

import (
	"net/url"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/source"
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
	if s.Limits != nil && s.Limits.MaxTotalBytes != 0 {
		errs = append(errs, jsonfile.Error{Field: "limits.maxTotalBytes", Msg: "only a dir source has maxTotalBytes (an https source has maxBytes per document and maxArchiveBytes)"})
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
	var meta []string
	if o.Source != "" {
		meta = append(meta, code(o.Source))
	}
	if o.Path != "" && o.Path != "." {
		meta = append(meta, "path "+code(o.Path))
	}
	if o.Rev != "" {
		meta = append(meta, "content "+code(naming.ShortRev(o.Rev, 7)))
	}
	if !o.Fetched.IsZero() {
		meta = append(meta, "fetched "+o.Fetched.UTC().Format("2006-01-02"))
	}
	return meta
}
