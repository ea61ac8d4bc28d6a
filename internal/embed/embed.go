// Package embed owns ctx's talk with the user's embedding endpoint: an
// OpenAI-compatible `POST {base}/embeddings` (Ollama, llama.cpp's server,
// LM Studio, vLLM, Hugging Face TEI, OpenAI). It owns which URLs may be
// used (https anywhere, plain http only to a loopback address, checked at
// dial time), the request's shape, batching and how many requests are in
// flight, the retries (429 and 5xx, honouring Retry-After, with backoff),
// the timeouts and the rate floor (internal/netrate's rule), and the
// checks of an answer (one vector per text, in range, all of one
// dimension, every number finite). Whatever the endpoint sends is
// untrusted. The API key is sent as a bearer token and never appears in
// an error.
//
// Where the settings come from (the user's config and CTX_EMBEDDINGS_*,
// never a committed manifest) is cmd/ctx's rule (embedConfig).
package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
)

// Config names an endpoint: the user's, never a repository's.
type Config struct {
	URL   string // the base URL: {URL}/embeddings is posted to
	Model string // the model name sent with each request
	Key   string // a bearer token (CTX_EMBEDDINGS_KEY), or ""
}

// Options bound a Client. Zero values take the defaults.
type Options struct {
	Batch     int           // texts per request; default defaultBatch
	Parallel  int           // requests in flight; default defaultParallel
	Attempts  int           // tries of one request (1 = no retry); default defaultAttempts
	Backoff   time.Duration // the first retry's delay, doubled after; default defaultBackoff
	MaxWait   time.Duration // the longest Retry-After honoured; default defaultMaxWait
	Idle      time.Duration // waiting for an answer's next byte, and the rate floor's window; default defaultIdle
	MaxInput  int           // bytes of a text sent, cut at a rune boundary; default defaultMaxInput
	MaxAnswer int64         // bytes of an answer read; default defaultMaxAnswer
}

const (
	defaultBatch     = 32
	defaultParallel  = 2
	defaultAttempts  = 4
	defaultBackoff   = 500 * time.Millisecond
	defaultMaxWait   = 30 * time.Second
	defaultIdle      = 60 * time.Second
	defaultMaxInput  = 6000
	defaultMaxAnswer = 64 << 20
	// MaxDims is the largest vector accepted (the largest common models
	// have 4,096).
	MaxDims = 16384
)

func (o Options) withDefaults() Options {
	if o.Batch <= 0 {
		o.Batch = defaultBatch
	}
	if o.Parallel <= 0 {
		o.Parallel = defaultParallel
	}
	if o.Attempts <= 0 {
		o.Attempts = defaultAttempts
	}
	if o.Backoff <= 0 {
		o.Backoff = defaultBackoff
	}
	if o.MaxWait <= 0 {
		o.MaxWait = defaultMaxWait
	}
	if o.Idle <= 0 {
		o.Idle = defaultIdle
	}
	if o.MaxInput <= 0 {
		o.MaxInput = defaultMaxInput
	}
	if o.MaxAnswer <= 0 {
		o.MaxAnswer = defaultMaxAnswer
	}
	return o
}

// Error is why an embedding request failed, worded for a note: it never
// holds the key, and quotes what the server sent bounded.
type Error struct {
	URL  string // the endpoint, without credentials
	Msg  string
	Err  error
	temp bool // another attempt may succeed
}

func (e *Error) Error() string {
	s := "embeddings at " + e.URL + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// CheckURL says whether raw may be an embedding endpoint: an absolute
// https URL, or http to a loopback host (localhost, 127.0.0.0/8, ::1),
// with no credentials, query or fragment in it.
func CheckURL(raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("embeddings URL %s: not an http(s) URL: write it as https://host/v1 (or http://localhost:11434/v1 for a local server)", safetext.Quote(raw))
	}
	if u.User != nil {
		return fmt.Errorf("embeddings URL %s: credentials in the URL are refused: put the key in CTX_EMBEDDINGS_KEY", safetext.Quote(u.Redacted()))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("embeddings URL %s: a base URL has no query or fragment (ctx posts to {URL}/embeddings)", safetext.Quote(raw))
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("embeddings URL %s: plain http is allowed only to this machine (localhost, 127.0.0.1, ::1): use https, as every document's text is sent there", safetext.Quote(raw))
	}
	return nil
}

// loopbackHost: "localhost" or a literal loopback address.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// Client embeds texts at one endpoint. It is safe for concurrent use.
type Client struct {
	cfg      Config
	o        Options
	endpoint string // cfg.URL + "/embeddings"
	shown    string // the endpoint as errors show it
	http     *http.Client

	mu   sync.Mutex
	dims int // the dimension of the first answer; every later one must match
}

// New checks c's URL and returns a client for it.
func New(c Config, o Options) (*Client, error) {
	if err := CheckURL(c.URL); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Model) == "" {
		return nil, errors.New("embeddings: no model named: set one with 'ctx config set embeddings.model NAME' (or CTX_EMBEDDINGS_MODEL)")
	}
	u, _ := url.Parse(strings.TrimSpace(c.URL))
	plain := u.Scheme == "http"
	u.Path = strings.TrimSuffix(u.Path, "/") + "/embeddings"
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if plain {
		// http only to this machine: the name must resolve to loopback.
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !ap.Addr().Unmap().IsLoopback() {
				return fmt.Errorf("%s is not a loopback address: plain http is allowed only to this machine", address)
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would see every document; and its settings are the environment's
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	hc := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("the endpoint redirected: give its final URL")
	}}
	return &Client{cfg: c, o: o.withDefaults(), endpoint: u.String(), shown: u.Redacted(), http: hc}, nil
}

// Model is the model the client asks for.
func (c *Client) Model() string { return c.cfg.Model }

// Endpoint is the URL posted to, as messages show it.
func (c *Client) Endpoint() string { return c.shown }

// Dims is the dimension of the vectors so far (0 before the first answer).
func (c *Client) Dims() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dims
}

// Close drops idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Embed returns one vector per text, in order: batches of Options.Batch,
// Options.Parallel of them in flight. done, when not nil, is called after
// each batch with the number of texts it held (from several goroutines).
// The first error ends it (the other batches are cancelled).
func (c *Client) Embed(ctx context.Context, texts []string, done func(n int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, c.o.Parallel)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for start := 0; start < len(texts); start += c.o.Batch {
		end := min(start+c.o.Batch, len(texts))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(start, end int) {
			defer wg.Done()
			defer func() { <-sem }()
			vecs, err := c.batch(ctx, texts[start:end])
			if err != nil {
				once.Do(func() { first = err; cancel(err) })
				return
			}
			copy(out[start:end], vecs)
			if done != nil {
				done(end - start)
			}
		}(start, end)
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// batch posts one batch, trying again on a failure that may pass.
func (c *Client) batch(ctx context.Context, texts []string) ([][]float32, error) {
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = cut(t, c.o.MaxInput)
	}
	body, err := json.Marshal(map[string]any{"model": c.cfg.Model, "input": in})
	if err != nil {
		return nil, err
	}
	var last error
	for attempt := 0; attempt < c.o.Attempts; attempt++ {
		vecs, wait, err := c.once(ctx, body, len(in))
		if err == nil {
			return vecs, nil
		}
		last = err
		var ee *Error
		if !errors.As(err, &ee) || !ee.temp || attempt == c.o.Attempts-1 {
			break
		}
		if wait <= 0 {
			wait = c.o.Backoff << attempt
		}
		t := time.NewTimer(min(wait, c.o.MaxWait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		case <-t.C:
		}
	}
	return nil, last
}

// answer is the OpenAI embeddings response, as much as ctx reads of it.
type answer struct {
	Data []struct {
		Index     *int              `json:"index"`
		Embedding []json.RawMessage `json:"embedding"`
	} `json:"data"`
}

// answerMembers bounds the commas an answer has per vector besides its
// numbers': those between its members and the answer's own ("object",
// "index", "model", "usage" and its counts, and their like).
const answerMembers = 16

var errStalled = errors.New("the endpoint stopped answering")

// once makes one request. wait is the server's Retry-After, when it gave one.
func (c *Client) once(ctx context.Context, body []byte, n int) (_ [][]float32, wait time.Duration, _ error) {
	ctx, watch := netrate.StartWatch(ctx, c.o.Idle, errStalled)
	defer watch.Stop()

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &Error{URL: c.shown, Msg: "not a URL"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ctx")
	if c.cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	status := "HTTP " + safetext.Clip(resp.Status, 0)
	switch code := resp.StatusCode; {
	case code == http.StatusOK:
	case code == http.StatusTooManyRequests || code >= 500:
		return nil, retryAfter(resp.Header.Get("Retry-After"), time.Now()), &Error{URL: c.shown, Msg: status + " (the server is busy or failed)", temp: true}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return nil, 0, &Error{URL: c.shown, Msg: status + ": the endpoint wants a key: set CTX_EMBEDDINGS_KEY"}
	default:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return nil, 0, &Error{URL: c.shown, Msg: status + ": " + safetext.Quote(strings.TrimSpace(string(msg)))}
	}
	r := watch.Body(io.LimitReader(resp.Body, c.o.MaxAnswer+1), nil)
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, c.transportError(ctx, err)
	}
	if int64(len(data)) > c.o.MaxAnswer {
		return nil, 0, &Error{URL: c.shown, Msg: fmt.Sprintf("the answer is over %d bytes", c.o.MaxAnswer)}
	}
	vecs, err := c.decode(data, n)
	if err != nil {
		return nil, 0, &Error{URL: c.shown, Msg: "a bad answer", Err: err}
	}
	return vecs, 0, nil
}

// decode checks an answer for n texts: n vectors, each index in range and
// given once, one dimension (the client's so far), finite numbers.
func (c *Client) decode(data []byte, n int) ([][]float32, error) {
	// Every list item but a list's last follows a comma, so an answer
	// with more commas than n vectors of MaxDims numbers (and a few
	// members each) has too many vectors or too long a one. Said before
	// decoding: a list is decoded whole before its length is checked, a
	// number to a json.RawMessage, 75 times the answer's bytes (red21:
	// a 16 MiB vector of zeros took 1.2 GB).
	if items, most := bytes.Count(data, []byte{','}), n*(MaxDims+answerMembers); items > most {
		return nil, fmt.Errorf("the answer holds over %d list items or members, more than %s of 1 to %d numbers have (a wrong model, or not an embeddings answer)", items, wording.Count(n, "vector", "vectors"), MaxDims)
	}
	var a answer
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("not an embeddings answer: %w", err)
	}
	if len(a.Data) != n {
		return nil, fmt.Errorf("%d vectors for %d texts", len(a.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range a.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= n || out[at] != nil {
			return nil, fmt.Errorf("vector %d: index %d is out of range or given twice", i, at)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) > MaxDims {
			return nil, fmt.Errorf("vector %d has %d numbers (1 to %d expected)", i, len(d.Embedding), MaxDims)
		}
		v := make([]float32, len(d.Embedding))
		for j, raw := range d.Embedding {
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxFloat32 {
				return nil, fmt.Errorf("vector %d, number %d: %s is not a finite number", i, j, safetext.Clip(string(raw), 40))
			}
			v[j] = float32(f)
		}
		out[at] = v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, v := range out {
		if c.dims == 0 {
			c.dims = len(v)
		}
		if len(v) != c.dims {
			return nil, fmt.Errorf("vector %d has %d dimensions, the endpoint gave %d before (did the model change?)", i, len(v), c.dims)
		}
	}
	return out, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(min(s, 86400)) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// transportError words a failure of the connection or of the body's read.
func (c *Client) transportError(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	var se *netrate.SlowError
	switch {
	case errors.Is(cause, errStalled):
		return &Error{URL: c.shown, Msg: fmt.Sprintf("no answer within %s", c.o.Idle)}
	case errors.As(cause, &se):
		return &Error{URL: c.shown, Msg: "too slow", Err: se}
	case cause != nil:
		return cause
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is said once, by Error
	}
	temp := errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
	return &Error{URL: c.shown, Msg: "cannot reach it", Err: err, temp: temp}
}

// cut returns s cut to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
