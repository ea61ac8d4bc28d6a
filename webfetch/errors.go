package webfetch

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// ErrNotCached is wrapped by Cached's error when the snapshot, or one of its
// blobs, is not in the cache (or its bytes no longer match their hash).
var ErrNotCached = errors.New("not in the cache")

// Kind classifies an Error so callers can act on it.
type Kind int

const (
	KindOther    Kind = iota
	KindNotFound      // the server answered 404 or 410 (now, or within the last hour)
	KindAuth          // the server answered 401 or 403
	KindLimit         // a size, redirect or page limit was exceeded
	KindPrivate       // the address is loopback, private, link-local, … and the source does not allow it
	KindScheme        // not http or https, or a redirect that changes the scheme
	KindNetwork       // DNS, connection, timeout, TLS, or a 5xx after every attempt
)

func (k Kind) String() string {
	switch k {
	case KindNotFound:
		return "not found"
	case KindAuth:
		return "access denied"
	case KindLimit:
		return "over a limit"
	case KindPrivate:
		return "private network address refused"
	case KindScheme:
		return "scheme refused"
	case KindNetwork:
		return "network error"
	}
	return "fetch error"
}

// Error is every error Fetch returns about a URL: "fetch URL: MSG: CAUSE
// (HINT)". URL is shown without user information or query string (either
// may carry a secret) and through safetext.Clip; the token is never part of
// it.
type Error struct {
	Kind Kind
	URL  string // as shown: see shownURL
	Msg  string // what went wrong, in ctx's words
	Hint string // what to do next; may be empty
	Err  error  // the cause, if any
}

func (e *Error) Error() string {
	msg := "fetch " + e.URL + ": " + e.Msg
	if e.Err != nil {
		msg += ": " + safetext.Clip(strings.Join(strings.Fields(e.Err.Error()), " "), 4*safetext.MaxQuote)
	}
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of err, or KindOther.
func KindOf(err error) Kind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return KindOther
}

// shownURL is raw as an error or a warning shows it: without user
// information and fragment, with the query string replaced by "?…" (it may
// hold a secret), escaped and clipped by safetext.Clip.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return safetext.Clip(raw, 0)
	}
	return shownU(u)
}

func shownU(u *url.URL) string {
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	hadQuery := c.RawQuery != "" || c.ForceQuery
	c.RawQuery, c.ForceQuery = "", false
	s := c.String()
	if hadQuery {
		s += "?…"
	}
	return safetext.Clip(s, 0)
}

// scrubbed is an error whose message has the token removed; Unwrap keeps the
// chain for errors.Is, errors.As and KindOf.
type scrubbed struct {
	msg string
	err error
}

func (s *scrubbed) Error() string { return s.msg }
func (s *scrubbed) Unwrap() error { return s.err }

// scrub returns err with every occurrence of token in its message replaced:
// a server may echo what it was sent in a status line or a redirect.
func scrub(err error, token string) error {
	if err == nil || token == "" {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, token) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(msg, token, "***"), err: err}
}

// limitError is the error for a body over its size limit.
func limitError(u, what string, size int64, exact bool, limit int64, field string) *Error {
	got := fmt.Sprintf("%d bytes", size)
	if !exact {
		got = fmt.Sprintf("more than %d bytes", limit)
	}
	return &Error{Kind: KindLimit, URL: shownURL(u),
		Msg:  fmt.Sprintf("the %s is %s, over the limit of %d bytes", what, got, limit),
		Hint: fmt.Sprintf("raise the source's %q in the manifest if this is expected", field)}
}
