package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/ctx-dev/ctx/internal/netguard"
	"time"

	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// errStalled is the cause of a request's context when its server sent
// nothing for Limits.Timeout.
var errStalled = errors.New("the server stopped sending")

// get fetches one URL into the blob cache, revalidating cond when it is not
// nil: it returns cond itself and true on a 304. It tries Limits.Attempts
// times when the server or the network fails in a way that may pass; a
// remembered 404 makes no request.
func (f *fetch) get(ctx context.Context, raw string, cond *Item, max int64, field, what string) (Item, bool, error) {
	withToken := f.r.Token != "" && hostIs(raw, f.origHost)
	if at, ok := f.c.notFoundSince(raw, withToken); ok {
		return Item{}, false, &Error{Kind: KindNotFound, URL: shownURL(raw),
			Msg:  fmt.Sprintf("not found (the server answered 404 at %s)", at.UTC().Format("2006-01-02 15:04:05 UTC")),
			Hint: fmt.Sprintf("check the URL; ctx remembers a 404 for an hour and asks again after %s", at.Add(notFoundTTL).UTC().Format("15:04:05 UTC"))}
	}
	backoff := f.c.o.backoff
	if d, ok := ctx.Value(RetryDelay{}).(time.Duration); ok && d > 0 {
		backoff = d
	}
	var err error
	attempt := 0
	for attempt < f.lim.Attempts {
		if attempt > 0 {
			t := time.NewTimer(backoff << (attempt - 1))
			select {
			case <-ctx.Done():
				t.Stop()
				return Item{}, false, fmt.Errorf("fetch %s: %w", shownURL(raw), ctx.Err())
			case <-t.C:
			}
		}
		attempt++
		var it Item
		var nm, retry bool
		it, nm, retry, err = f.once(ctx, raw, cond, max, field, what, withToken)
		if err == nil {
			if !nm {
				f.changed.Store(true)
			}
			return it, nm, nil
		}
		if !retry {
			break
		}
	}
	var fe *Error
	if attempt > 1 && errors.As(err, &fe) {
		fe.Msg += fmt.Sprintf(" (after %d attempts)", attempt)
	}
	return Item{}, false, err
}

func hostIs(raw, host string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(u.Host, host)
}

// once makes one request (following redirects). retry says whether another
// attempt may succeed.
func (f *fetch) once(ctx context.Context, raw string, cond *Item, max int64, field, what string, withToken bool) (it Item, notModified, retry bool, err error) {
	// The idle timeout, and the rate floor (internal/netrate's rule) over
	// the body: at least netrate.DefaultBytes in every Limits.Timeout.
	ctx, watch := netrate.StartWatch(ctx, f.lim.Timeout, errStalled)
	defer watch.Stop()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return it, false, false, &Error{Kind: KindOther, URL: shownURL(raw), Msg: "not a URL", Hint: "write it as https://host/path"}
	}
	req.Header.Set("User-Agent", "ctx")
	if withToken {
		req.Header.Set("Authorization", "Bearer "+f.r.Token)
	}
	conditional := false
	if cond != nil {
		if cond.ETag != "" {
			req.Header.Set("If-None-Match", cond.ETag)
			conditional = true
		} else if cond.LastModified != "" {
			req.Header.Set("If-Modified-Since", cond.LastModified)
			conditional = true
		}
	}
	f.progress(0, false) // a request starts: a slow server shows at once
	resp, err := f.http.Do(req)
	if err != nil {
		err, retry = f.transportError(ctx, raw, err)
		return it, false, retry, err
	}
	defer resp.Body.Close()
	shown := shownURL(raw)
	status := "HTTP " + safetext.Clip(resp.Status, 0)
	switch code := resp.StatusCode; {
	case code == http.StatusNotModified && conditional:
		return *cond, true, false, nil
	case code == http.StatusOK:
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		hint := "the server wants credentials: set the source's \"tokenEnv\" to the name of an environment variable holding a token"
		if withToken {
			hint = "the server refused the token: check the environment variable named by the source's \"tokenEnv\""
		}
		return it, false, false, &Error{Kind: KindAuth, URL: shown, Msg: status, Hint: hint}
	case code == http.StatusNotFound || code == http.StatusGone:
		f.c.rememberNotFound(raw, withToken)
		return it, false, false, &Error{Kind: KindNotFound, URL: shown, Msg: status,
			Hint: "check the URL; ctx remembers a 404 for an hour"}
	case code >= 500:
		return it, false, true, &Error{Kind: KindNetwork, URL: shown, Msg: status + " (a server error)", Hint: "try again later"}
	default:
		return it, false, false, &Error{Kind: KindOther, URL: shown, Msg: status + " (expected 200 OK)", Hint: "check the URL"}
	}
	if f.checkOnly {
		return Item{URL: raw, FinalURL: resp.Request.URL.String()}, false, false, nil
	}
	if resp.ContentLength > max {
		return it, false, false, limitError(raw, what, resp.ContentLength, true, max, field)
	}
	body := watch.Body(resp.Body, func(n int) { f.progress(n, false) })
	blob, n, err := f.c.storeBlob(body, max)
	f.body.Add(min(n, max))
	if err == nil {
		f.progress(0, true)
	}
	switch {
	case errors.Is(err, errTooBig):
		return it, false, false, limitError(raw, what, 0, false, max, field)
	case err != nil && body.Err != nil:
		err, retry = f.transportError(ctx, raw, body.Err)
		return it, false, retry, err
	case err != nil:
		return it, false, false, fmt.Errorf("fetch %s: %w", shown, err)
	}
	return Item{
		URL: raw, FinalURL: resp.Request.URL.String(), ContentType: resp.Header.Get("Content-Type"),
		Blob: blob, Size: n, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
	}, false, false, nil
}

// transportError words an error of the client or of a body read; retry
// says whether it may pass (a timeout, a reset or cut connection).
func (f *fetch) transportError(ctx context.Context, raw string, err error) (_ error, retry bool) {
	shown := shownURL(raw)
	var fe *Error
	if errors.As(err, &fe) { // from checkRedirect
		return fe, false
	}
	var pe *netguard.AddrError
	if errors.As(err, &pe) {
		host := "the host"
		var ue *url.Error
		if errors.As(err, &ue) {
			if u, perr := url.Parse(ue.URL); perr == nil {
				host = shownURL(u.Hostname())
			}
		}
		return &Error{Kind: KindPrivate, URL: shown,
			Msg:  fmt.Sprintf("%s resolves to %s, a %s address: refused", host, pe.Addr, pe.What),
			Hint: "if the source is meant to be on a private network, add it with `ctx add --allow-private-network`"}, false
	}
	// A stall, like a transfer too slow, is not tried again: that would
	// only multiply the wait (a stalled server costs one Limits.Timeout,
	// as a stalled git server costs one idle timeout).
	if errors.Is(context.Cause(ctx), errStalled) {
		return &Error{Kind: KindNetwork, URL: shown, Msg: fmt.Sprintf("the server sent nothing for %s", f.lim.Timeout),
			Hint: fmt.Sprintf("try again later, or raise the source's %q in the manifest", fieldTimeout)}, false
	}
	var slow *netrate.SlowError
	if errors.As(context.Cause(ctx), &slow) {
		return &Error{Kind: KindNetwork, URL: shown, Msg: slow.Error(),
			Hint: fmt.Sprintf("to allow a slower link, raise the source's limits.%s in the manifest: a transfer must move %d bytes in each %s", fieldTimeout, slow.Floor.Bytes, fieldTimeout)}, false
	}
	if ctx.Err() != nil { // the caller cancelled
		return fmt.Errorf("fetch %s: %w", shown, context.Cause(ctx)), false
	}
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err // its message repeats the URL, query string included
	}
	var ne net.Error
	retry = errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) ||
		(errors.As(err, &ne) && ne.Timeout())
	return &Error{Kind: KindNetwork, URL: shown, Msg: "cannot fetch", Err: cause, Hint: "check the URL and your network"}, retry
}
