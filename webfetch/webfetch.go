// Package webfetch is the network half of the https source kind: it fetches
// a document, an llms.txt index with the pages it links, or an archive, over
// http or https, within limits, into a content-addressed cache, and
// revalidates what it fetched before with conditional requests. It knows
// nothing of workspace; converting the bytes is webdoc's.
//
// Rules, each tested:
//   - only http and https; a redirect may not change the scheme, and at most
//     Limits.MaxRedirects are followed;
//   - loopback, private, link-local, unspecified and multicast addresses are
//     refused at dial time, after DNS and on every redirect, unless
//     Request.AllowPrivate, which covers Request.URL's scheme and host
//     only (a redirect elsewhere, and an llms.txt index's pages there,
//     are guarded);
//   - a body is refused over its size limit, by Content-Length before
//     reading and by counting while reading;
//   - a request whose server sends nothing for Limits.Timeout fails; 5xx
//     answers, timeouts and broken connections are tried Limits.Attempts
//     times with exponential backoff, 4xx answers once;
//   - a body that comes slower than internal/netrate's floor (1,000 bytes
//     in each Limits.Timeout) fails, and is not tried again;
//   - a 404 is remembered for an hour in the cache;
//   - in an llms.txt index, a page that fails for any reason is left out
//     with a warning naming it; the fetch fails only when the index does,
//     or every page it links;
//   - the token goes only to the host of Request.URL, as a Bearer
//     Authorization header, and never into an error, a log or the cache.
package webfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/gofrs/flock"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/webdoc"
)

// The forms of a source: webdoc's (Detect infers them).
const (
	FormDocument = webdoc.FormDocument
	FormLLMS     = webdoc.FormLLMS
	FormArchive  = webdoc.FormArchive
)

// Options configure a Client.
type Options struct {
	CacheDir string           // the shared cache root; webfetch owns <CacheDir>/https/
	Warn     func(msg string) // nil = discard
	Now      func() time.Time // nil = time.Now

	// Test seams.
	public  func(netip.AddrPort) bool // an address the SSRF guard lets through
	backoff time.Duration             // the first retry's delay; 0 = defaultBackoff
	tls     *tls.Config               // nil = the system's roots
}

// The default limits, issue 11's.
const (
	DefaultMaxBytes        = 10 << 20 // per document body
	DefaultMaxArchiveBytes = 100 << 20
	DefaultMaxPages        = 200
	DefaultTimeout         = 30 * time.Second
	DefaultMaxRedirects    = 5
	DefaultAttempts        = 3
	defaultBackoff         = 500 * time.Millisecond // before the first retry; doubled before each next one
)

// The ceilings of the limits a source may set (Limits.Problems): a manifest
// is a teammate's word, and ctx's git hooks install what it says on a pull,
// unattended, so raising a limit stops at 20–25 times its default (red18
// finding 3: "timeout": "8760h" held a pull for as long as the commit said).
const (
	CeilingMaxBytes        = 256 << 20
	CeilingMaxArchiveBytes = 2 << 30
	CeilingMaxPages        = 5_000
	CeilingTimeout         = 10 * time.Minute
	CeilingMaxRedirects    = 20
)

// RetryDelay is a context key: a time.Duration above zero under it
// (context.WithValue(ctx, RetryDelay{}, d)) is a Fetch's delay before its
// first retry, doubled before each next one, in place of the Client's
// (500 ms unless set). It is the seam through which the tests of a caller
// that makes its own Client (the CLI, run in process by its scripts)
// shorten the waits; nothing in ctx sets it.
type RetryDelay struct{}

// Limits bound one Fetch. A zero field takes its default (WithDefaults).
type Limits struct {
	MaxBytes        int64         // per document body; 0 = DefaultMaxBytes
	MaxArchiveBytes int64         // archive download, or an llms.txt index and its pages together; 0 = DefaultMaxArchiveBytes (extraction bounds are webdoc's)
	MaxPages        int           // llms.txt: linked pages fetched; 0 = DefaultMaxPages
	Timeout         time.Duration // per request: the longest the server may send nothing, and the window of the rate floor; 0 = DefaultTimeout
	MaxRedirects    int           // 0 = DefaultMaxRedirects
	Attempts        int           // with backoff on 5xx, timeouts, connection resets; 0 = DefaultAttempts
}

// The manifest fields that raise each limit, as errors name them.
const (
	fieldMaxBytes        = "maxBytes"
	fieldMaxArchiveBytes = "maxArchiveBytes"
	fieldMaxRedirects    = "maxRedirects"
	fieldTimeout         = "timeout"
	fieldMaxPages        = "maxPages"
)

// DefaultLimits returns the Default* limits.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:        DefaultMaxBytes,
		MaxArchiveBytes: DefaultMaxArchiveBytes,
		MaxPages:        DefaultMaxPages,
		Timeout:         DefaultTimeout,
		MaxRedirects:    DefaultMaxRedirects,
		Attempts:        DefaultAttempts,
	}
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes == 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxArchiveBytes == 0 {
		l.MaxArchiveBytes = d.MaxArchiveBytes
	}
	if l.MaxPages == 0 {
		l.MaxPages = d.MaxPages
	}
	if l.Timeout == 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxRedirects == 0 {
		l.MaxRedirects = d.MaxRedirects
	}
	if l.Attempts == 0 {
		l.Attempts = d.Attempts
	}
	return l
}

// LimitProblem is one limit out of range: Field is its manifest field
// (maxBytes, timeout, …).
type LimitProblem struct {
	Field, Msg string
}

// Problems lists the limits of l out of range: negative, or over their
// ceiling (Ceiling*). A zero field is its default, which is within.
func (l Limits) Problems() []LimitProblem {
	var out []LimitProblem
	num := func(field string, v, ceiling int64, unit string) {
		switch {
		case v < 0:
			out = append(out, LimitProblem{field, fmt.Sprintf("%s is %d: it must be positive", field, v)})
		case v > ceiling:
			out = append(out, LimitProblem{field, fmt.Sprintf("%s is %d: it may be at most %d%s, the most a source may raise it to", field, v, ceiling, unit)})
		}
	}
	num(fieldMaxBytes, l.MaxBytes, CeilingMaxBytes, " (256 MiB)")
	num(fieldMaxArchiveBytes, l.MaxArchiveBytes, CeilingMaxArchiveBytes, " (2 GiB)")
	num(fieldMaxPages, int64(l.MaxPages), CeilingMaxPages, "")
	num(fieldMaxRedirects, int64(l.MaxRedirects), CeilingMaxRedirects, "")
	switch {
	case l.Timeout < 0:
		out = append(out, LimitProblem{fieldTimeout, fmt.Sprintf("%s is %s: it must be positive", fieldTimeout, l.Timeout)})
	case l.Timeout > CeilingTimeout:
		out = append(out, LimitProblem{fieldTimeout, fmt.Sprintf("%s is %s: it may be at most %s, the most a source may raise it to", fieldTimeout, l.Timeout, CeilingTimeout)})
	}
	if l.Attempts < 0 {
		out = append(out, LimitProblem{"attempts", fmt.Sprintf("attempts is %d: it must be positive", l.Attempts)})
	}
	return out
}

// check is Problems' first, as an error.
func (l Limits) check() error {
	if p := l.Problems(); len(p) > 0 {
		return errors.New(p[0].Msg)
	}
	return nil
}

// Request is one source to fetch.
type Request struct {
	URL          string
	Form         string // FormDocument, FormLLMS, FormArchive; "" = inferred from the URL
	Token        string // sent as Authorization: Bearer to the host of URL only; never in errors, logs, cache keys or files
	AllowPrivate bool   // allow loopback, private and link-local addresses for the scheme and host of URL (not a redirect elsewhere)
	Limits       Limits
	Prev         *Snapshot // the locked snapshot, for If-None-Match / If-Modified-Since; nil = unconditional
	// Progress, when set, is called when a request starts and as body bytes
	// arrive, with the bodies received whole so far and every body byte so
	// far (retries included); it may be called often, never at once from
	// two goroutines.
	Progress func(Progress)
}

// Progress is one Fetch's transfer so far.
type Progress struct {
	Bodies int   // bodies received whole (a document, the index and its pages)
	Bytes  int64 // body bytes received
}

// Item is one fetched body.
type Item struct {
	URL          string `json:"url"`
	FinalURL     string `json:"finalURL,omitempty"`
	ContentType  string `json:"contentType,omitempty"`
	Blob         string `json:"blob"` // sha256 hex of the body, its name in the cache
	Size         int64  `json:"size"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
}

// Snapshot is what one Fetch of a source saw. Only Rev and the fields above
// Fetched are stored in the cache; the others describe the Fetch.
type Snapshot struct {
	Rev          string    `json:"rev"` // "sha256:<hex>" of the canonical JSON of Form and the items' URLs and blobs: the lock's rev
	Form         string    `json:"form"`
	URL          string    `json:"url"`
	FinalURL     string    `json:"finalURL,omitempty"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"lastModified,omitempty"`
	Fetched      time.Time `json:"fetched"`
	Items        []Item    `json:"items"` // the top document first; for llms, each linked page

	NotModified bool      `json:"-"` // no request brought a body (each answered 304, or a page is still a remembered 404) and Rev is Prev's: the snapshot is Prev's, Fetched included
	Checked     time.Time `json:"-"` // when this Fetch ran (Fetched is when the content was fetched)
	Requests    int       `json:"-"` // requests made, redirects included
	BodyBytes   int64     `json:"-"` // body bytes received
}

// Client fetches sources. It keeps connections between Fetches and no other
// state; its cache is on disk.
type Client struct {
	o       Options
	guarded *http.Transport // refuses non-public addresses
	open    *http.Transport // for sources with AllowPrivate, to their own origin (originTransport)
	sweep   sync.Once       // stale .incoming-* files removed, once per Client

	holdOnce sync.Once    // the cache's shared lock taken (hold)
	holdErr  error        // why it could not be
	lock     *flock.Flock // the shared lock, held until Close
}

// New returns a Client.
func New(o Options) *Client {
	if o.backoff == 0 {
		o.backoff = defaultBackoff
	}
	return &Client{o: o, guarded: newTransport(true, o.public, o.tls), open: newTransport(false, nil, o.tls)}
}

// Close closes the idle connections and lets go of the cache (see hold).
func (c *Client) Close() {
	c.guarded.CloseIdleConnections()
	c.open.CloseIdleConnections()
	if c.lock != nil {
		_ = c.lock.Unlock()
	}
}

func (c *Client) now() time.Time {
	if c.o.Now != nil {
		return c.o.Now()
	}
	return time.Now()
}

func (c *Client) warn(format string, a ...any) {
	if c.o.Warn != nil {
		c.o.Warn(fmt.Sprintf(format, a...))
	}
}

// fetch is the state of one Fetch.
type fetch struct {
	c        *Client
	r        Request
	lim      Limits
	origHost string // the token goes only here
	http     *http.Client
	requests atomic.Int64
	body     atomic.Int64
	// seen and bodies are what Request.Progress is told, under progMu
	// (an llms.txt index's pages come in a few at a time).
	progMu  sync.Mutex
	seen    int64
	bodies  int
	changed atomic.Bool // some request answered with a body
	// checkOnly: once stops at the status (Check).
	checkOnly bool
}

// progress tells Request.Progress that n more body bytes arrived, and
// that one more body is whole when whole.
func (f *fetch) progress(n int, whole bool) {
	if f.r.Progress == nil {
		return
	}
	f.progMu.Lock()
	defer f.progMu.Unlock()
	f.seen += int64(n)
	if whole {
		f.bodies++
	}
	f.r.Progress(Progress{Bodies: f.bodies, Bytes: f.seen})
}

// Fetch fetches the source r names into the cache and returns its snapshot.
// With r.Prev (and Prev in the cache) every request is conditional; when
// each answers 304 the snapshot is Prev's with NotModified set. Every error
// about the network is an *Error (see KindOf); none contains r.Token.
func (c *Client) Fetch(ctx context.Context, r Request) (*Snapshot, error) {
	s, err := c.fetch(ctx, r)
	return s, scrub(err, r.Token)
}

// Check asks whether r's URL can be read with r's token and address rule:
// one GET through the same guard, redirect rules and time limit as Fetch,
// whose body is not read; the status is classified as Fetch classifies it
// (KindOf). Nothing is cached but a 404.
func (c *Client) Check(ctx context.Context, r Request) error {
	f, form, err := c.start(r)
	if err == nil {
		f.checkOnly = true
		_, _, err = f.get(ctx, r.URL, nil, f.lim.MaxArchiveBytes, fieldMaxArchiveBytes, form)
	}
	return scrub(err, r.Token)
}

// start checks r and makes the state of one fetch of it, with its form.
func (c *Client) start(r Request) (*fetch, string, error) {
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, "", &Error{Kind: KindOther, URL: shownURL(r.URL), Msg: "not a URL", Hint: "write it as https://host/path"}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", &Error{Kind: KindScheme, URL: shownURL(r.URL), Msg: "only http and https URLs can be fetched", Hint: "use an https:// URL, or a git or dir source"}
	}
	if u.Hostname() == "" { // http://:8080/ has a Host but no host name: it would dial this machine
		return nil, "", &Error{Kind: KindOther, URL: shownURL(r.URL), Msg: "the URL has no host", Hint: "write it as https://host/path"}
	}
	if u.User != nil {
		return nil, "", &Error{Kind: KindOther, URL: shownURL(r.URL), Msg: "the URL carries credentials, which would be written to the lock", Hint: "remove them and name an environment variable holding a token in the source's \"tokenEnv\""}
	}
	if strings.ContainsFunc(r.Token, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, "", &Error{Kind: KindAuth, URL: shownURL(r.URL), Msg: "the token contains a control character (a newline?)", Hint: "check the environment variable named by \"tokenEnv\""}
	}
	if err := r.Limits.check(); err != nil {
		return nil, "", &Error{Kind: KindOther, URL: shownURL(r.URL), Msg: "bad limits", Err: err}
	}
	form := r.Form
	if form == "" {
		form = webdoc.Detect(u.String(), "")
	}
	if form != FormDocument && form != FormLLMS && form != FormArchive {
		return nil, "", &Error{Kind: KindOther, URL: shownURL(r.URL), Msg: fmt.Sprintf("unknown form %s", shownURL(form)), Hint: "use document, llms or archive"}
	}
	f := &fetch{c: c, r: r, lim: r.Limits.WithDefaults(), origHost: strings.ToLower(u.Host)}
	var tr http.RoundTripper = c.guarded
	if r.AllowPrivate {
		// The allowance is the source's origin's (the user's, bound to
		// it): a redirect or an llms.txt page elsewhere goes through the
		// guard, as the token goes only to that host.
		tr = originTransport{open: c.open, guarded: c.guarded, scheme: strings.ToLower(u.Scheme), host: f.origHost}
	}
	f.http = &http.Client{Transport: countingTransport{tr, &f.requests}, CheckRedirect: f.checkRedirect}
	return f, form, nil
}

func (c *Client) fetch(ctx context.Context, r Request) (*Snapshot, error) {
	if c.o.CacheDir == "" {
		return nil, fmt.Errorf("fetch %s: no cache directory configured", shownURL(r.URL))
	}
	if err := c.hold(); err != nil {
		return nil, err
	}
	f, form, err := c.start(r)
	if err != nil {
		return nil, err
	}

	// Revalidate only what the cache still holds; else fetch afresh.
	var prev *Snapshot
	if r.Prev != nil && r.Prev.Rev != "" {
		if p, err := c.Cached(r.Prev.Rev); err == nil && p.Form == form {
			prev = p
			if r.Prev.ETag != "" || r.Prev.LastModified != "" {
				prev.Items[0].ETag, prev.Items[0].LastModified = r.Prev.ETag, r.Prev.LastModified
			}
			prev.ETag, prev.LastModified = prev.Items[0].ETag, prev.Items[0].LastModified
			if !r.Prev.Fetched.IsZero() {
				prev.Fetched = r.Prev.Fetched
			}
		}
	}

	var items []Item
	switch form {
	case FormLLMS:
		items, err = f.llms(ctx, prev)
	default:
		var cond *Item
		if prev != nil {
			cond = &prev.Items[0]
		}
		max, field := f.lim.MaxBytes, fieldMaxBytes
		if form == FormArchive {
			max, field = f.lim.MaxArchiveBytes, fieldMaxArchiveBytes
		}
		var it Item
		it, _, err = f.get(ctx, r.URL, cond, max, field, form)
		items = []Item{it}
	}
	if err != nil {
		return nil, err
	}
	now := c.now().UTC()
	s := &Snapshot{
		Rev: revOf(form, items), Form: form, URL: r.URL,
		FinalURL: items[0].FinalURL, ETag: items[0].ETag, LastModified: items[0].LastModified,
		Fetched: now, Items: items,
	}
	if prev != nil && !f.changed.Load() && s.Rev == prev.Rev {
		s = prev
		s.NotModified = true
	} else if err := c.storeSnapshot(s); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", shownURL(r.URL), err)
	}
	s.Checked = now
	s.Requests = int(f.requests.Load())
	s.BodyBytes = f.body.Load()
	return s, nil
}

// originTransport sends a request to the source's own scheme and host
// (Request.URL's, as written) through open, and any other through guarded.
type originTransport struct {
	open, guarded http.RoundTripper
	scheme, host  string
}

func (t originTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.EqualFold(req.URL.Scheme, t.scheme) && strings.EqualFold(req.URL.Host, t.host) {
		return t.open.RoundTrip(req)
	}
	return t.guarded.RoundTrip(req)
}

// countingTransport counts the requests sent, redirects included.
type countingTransport struct {
	base http.RoundTripper
	n    *atomic.Int64
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.base.RoundTrip(req)
}

// checkRedirect follows at most MaxRedirects redirects, never to another
// scheme, and drops the token on the way to another host. The guard checks
// the new address when it is dialed.
func (f *fetch) checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if len(via) > f.lim.MaxRedirects {
		return &Error{Kind: KindLimit, URL: shownU(first), Msg: fmt.Sprintf("more than %d redirects", f.lim.MaxRedirects),
			Hint: fmt.Sprintf("use the final URL, or raise the source's %q in the manifest", fieldMaxRedirects)}
	}
	if req.URL.Scheme != first.Scheme {
		return &Error{Kind: KindScheme, URL: shownU(first), Msg: fmt.Sprintf("redirected from %s to %s (%s): a redirect may not change the scheme", first.Scheme, shownU(req.URL), req.URL.Scheme),
			Hint: "use a URL that needs no such redirect"}
	}
	if !strings.EqualFold(req.URL.Host, f.origHost) {
		req.Header.Del("Authorization")
	}
	return nil
}
