package gitengine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/internal/netguard"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-git/v5/plumbing/transport"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
)

// Guard keeps the remotes of an Engine's calls off the private network
// (loopback, private, link-local and the other addresses
// internal/netguard refuses), but for the origins the caller allows: for
// a remote someone else named (a committed manifest, a registry the user
// did not name), whose allowance is the user's (project's rule). It is
// checked where the address is known:
//   - http(s): at dial time, after DNS, on every request and redirect
//     (a redirect from an allowed origin to another is guarded); through
//     a proxy (the environment's), the request's host is resolved and
//     checked before it is sent, as the proxy dials it;
//   - ssh: on the address the connection reached, before the host key is
//     accepted, so no credential is offered to a refused address; through
//     the environment's SOCKS proxy (Options.Proxy: ALL_PROXY, which
//     go-git follows) the connection reaches the proxy, so the remote's
//     host is resolved and checked first, as for http;
//   - git://: go-git's transport dials by itself, so the host is resolved
//     and checked first, and the connection pinned to the address checked
//     (the protocol's host= then names that address).
//
// A call that needs no network (a commit in the object cache) reaches
// nothing and is not checked.
type Guard struct {
	// Allowed reports whether origin (netguard.Origin's
	// scheme://host:port) may be reached on the private network; nil
	// allows none.
	Allowed func(origin string) bool
	// Hint is what a refused call's error says to do (how to allow it).
	Hint string
}

// Guarded returns an Engine that shares e's options, label and memory and
// keeps its calls' remotes off the private network but where g allows.
func (e *Engine) Guarded(g Guard) *Engine {
	c := *e
	c.guard = &g
	return &c
}

// allows reports whether the call may reach origin on the private
// network: an unguarded Engine's always, a guarded one's where Allowed.
func (e *Engine) allows(origin string, ok bool) bool {
	if e.guard == nil {
		return true
	}
	return ok && e.guard.Allowed != nil && e.guard.Allowed(origin)
}

// Origin is the origin (netguard.Origin: scheme://host:port) of the git
// remote url as a Guard is asked about it, the one the user's allowances
// name; ok is false for a repository on this machine or a URL that does
// not parse.
func Origin(url string) (string, bool) {
	r, err := parseRemote(url)
	if err != nil || r.local != "" {
		return "", false
	}
	return remoteOrigin(r)
}

// remoteOrigin is r's origin as the user's allowances name it.
func remoteOrigin(r *remote) (string, bool) {
	return netguard.Origin(r.ep.Protocol, r.ep.Host, r.ep.Port)
}

// guardKey is what a guarded call adds to the key of a remembered
// answer (refsKey): an answer got where the network was open is not one
// where it is closed.
func (e *Engine) guardKey(r *remote) string {
	if e.guard == nil || e.allows(remoteOrigin(r)) {
		return ""
	}
	return "\x00guarded"
}

// PrivateError is why a guarded call did not reach its remote: the
// address it would have reached is on the private network.
type PrivateError struct {
	Host string // as the URL names it
	Addr *netguard.AddrError
	// Redirect is the origin a server redirected the call to, when the
	// refused request was such a redirect ("" otherwise).
	Redirect string
}

func (e *PrivateError) Error() string {
	msg := fmt.Sprintf("%s resolves to %s, a %s address", safetext.Quote(e.Host), e.Addr.Addr, e.Addr.What)
	if h := strings.Trim(e.Host, "[]"); h == "" || h == e.Addr.Addr.String() {
		msg = e.Addr.Error()
	}
	if e.Redirect != "" {
		msg = "the server redirected to " + safetext.Quote(e.Redirect) + ": " + msg
	}
	return msg
}

func (e *PrivateError) Unwrap() error { return e.Addr }

// privateOf returns err as a *PrivateError for host when it is the
// guard's refusal.
func privateOf(host string, err error) error {
	var pe *PrivateError
	if errors.As(err, &pe) {
		return pe
	}
	var ae *netguard.AddrError
	if errors.As(err, &ae) {
		return &PrivateError{Host: host, Addr: ae}
	}
	return err
}

// guardedTransport is the HTTP transport of a guarded call: an allowed
// origin's requests go through open as an unguarded call's, the others
// through direct (no proxy, netguard.Control at dial time) or, when the
// environment's proxy takes the request, through open once the host
// resolves to public addresses only. refused keeps the guard's refusal
// for the conn, whatever go-git makes of the error.
type guardedTransport struct {
	e       *Engine
	open    *http.Transport
	direct  *http.Transport
	refused *atomic.Pointer[PrivateError]
}

func (t guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	port := 0
	if p := req.URL.Port(); p != "" {
		if n, err := strconv.Atoi(p); err == nil {
			port = n
		}
	}
	if t.e.allows(netguard.Origin(req.URL.Scheme, req.URL.Hostname(), port)) {
		return t.open.RoundTrip(req)
	}
	resp, err := netguard.Transport{Open: t.open, Direct: t.direct}.RoundTrip(req)
	if err != nil {
		redirect := ""
		if req.Response != nil { // http.Client's redirect (Request.Response)
			redirect, _ = netguard.Origin(req.URL.Scheme, req.URL.Hostname(), port)
		}
		return nil, t.refuse(req.URL.Hostname(), redirect, err)
	}
	return resp, nil
}

func (t guardedTransport) refuse(host, redirect string, err error) error {
	err = privateOf(host, err)
	var pe *PrivateError
	if errors.As(err, &pe) {
		if redirect != "" {
			c := *pe
			c.Redirect = redirect
			pe, err = &c, &c
		}
		t.refused.CompareAndSwap(nil, pe)
	}
	return err
}

// guardedDirect returns the memory's transport for guarded requests: as
// httpTransport, without a proxy, refusing the private network at dial
// time.
func (m *memory) guardedDirect() *http.Transport {
	m.guardedOnce.Do(func() {
		m.guarded = m.httpTransport().Clone()
		m.guarded.Proxy = nil
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: netguard.Control(nil)}
		m.guarded.DialContext = d.DialContext
	})
	return m.guarded
}

// sshProxy returns the address of the environment's proxy (Options.Proxy)
// a guarded ssh call to r goes through, "" for a direct one. Through the
// proxy the connection lands on the proxy's address, not the remote's, so
// r's host is checked here first, as netguard.Transport checks an http
// request's (resolved, checked, not pinned: the proxy resolves again);
// the error is the refusal, or the failed look-up.
func (e *Engine) sshProxy(ctx context.Context, r *remote) (string, error) {
	port := r.ep.Port
	if port <= 0 {
		port = netguard.DefaultPort("ssh")
	}
	via := e.opts.Proxy.Via(net.JoinHostPort(r.ep.Host, strconv.Itoa(port)))
	if via == "" {
		return "", nil
	}
	if _, err := netguard.Resolve(ctx, r.ep.Host); err != nil {
		return "", privateOf(r.ep.Host, err)
	}
	return via, nil
}

// guardSSH wraps an ssh host key check so that a connection to a refused
// address ends before its host key is accepted (and so before any key
// signs anything); refused keeps the refusal. A connection that landed on
// the proxy at via (sshProxy, which checked the host) is not refused for
// the proxy's address.
func guardSSH(host, via string, check ssh.HostKeyCallback, refused *atomic.Pointer[PrivateError]) ssh.HostKeyCallback {
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		if via != "" && netguard.IsProxy(context.Background(), via, remote) {
			return check(hostname, remote, key)
		}
		if err := netguard.Check(remote.String(), nil); err != nil {
			pe := privateOf(host, err).(*PrivateError)
			refused.CompareAndSwap(nil, pe)
			return pe
		}
		return check(hostname, remote, key)
	}
}

// pinGit resolves r's host for a git:// connection and returns r with its
// endpoint pinned to the address checked, or the refusal.
func pinGit(ctx context.Context, r *remote) (*remote, error) {
	a, err := netguard.Resolve(ctx, r.ep.Host)
	if err != nil {
		return nil, privateOf(r.ep.Host, err)
	}
	pinned, ep := *r, *r.ep
	ep.Host = a.String()
	pinned.ep = &ep
	return &pinned, nil
}

// guardAuth makes auth's host key check refuse a connection that reached
// the private network (guardSSH).
func guardAuth(auth transport.AuthMethod, host, via string, refused *atomic.Pointer[PrivateError]) {
	switch a := auth.(type) {
	case *gitssh.PublicKeys:
		a.HostKeyCallback = guardSSH(host, via, a.HostKeyCallback, refused)
	case *gitssh.PublicKeysCallback:
		a.HostKeyCallback = guardSSH(host, via, a.HostKeyCallback, refused)
	}
}

// private returns the guard's refusal of c's remote as the call's error,
// when err (or a request of c) met it; nil otherwise.
func (c *conn) private(op string, err error) *Error {
	pe := c.guardRefused.Load()
	if pe == nil && !errors.As(err, &pe) {
		return nil
	}
	return c.e.refusal(c.r, op, pe)
}

// refusal is the error of a call the Guard refused: KindPrivate, with the
// Guard's hint.
func (e *Engine) refusal(r *remote, op string, err error) *Error {
	var pe *PrivateError
	if !errors.As(err, &pe) {
		return classify(r.raw, op, err, false) // the lookup failed: no refusal
	}
	hint := ""
	if e.guard != nil {
		hint = e.guard.Hint
	}
	if pe.Redirect != "" {
		// The Guard's hint is how to allow the origin named, which is not
		// the one refused (red20).
		hint = "an allowance is for the origin a source names, not for where its server redirects; if you trust " + safetext.Quote(pe.Redirect) + ", name that repository's URL in the package yourself (`ctx add URL`)"
	}
	return newError(KindPrivate, r.raw, op, pe, hint)
}

// cacheLookup bounds guardCache's look-up of a host name: offline, the
// cache still answers after at most this long.
const cacheLookup = 3 * time.Second

// guardCache refuses a guarded call's read of the object cache for a
// remote whose origin the Guard does not allow and whose host is on the
// private network (review18c): the cache is the user's, shared by every
// project, and a commit fetched there on the user's word (another
// project's ctx add) is not for a repository someone else named to have
// without a request. The host is judged as a dial would judge it
// (netguard.Resolve: a literal address, or every address of a name). A
// name that does not resolve (offline) is not refused here: the cache
// answers what it has, and a fetch meets the dial-time guard.
func (e *Engine) guardCache(ctx context.Context, r *remote) error {
	if e.guard == nil || e.allows(remoteOrigin(r)) {
		return nil
	}
	host := strings.ToLower(r.ep.Host)
	v, _ := e.mem.cacheHosts.LoadOrStore(host, &cacheHost{})
	h := v.(*cacheHost)
	h.once.Do(func() { // one look-up a host in the Engine's lifetime
		ctx, cancel := context.WithTimeout(ctx, cacheLookup)
		defer cancel()
		_, err := netguard.Resolve(ctx, host)
		if ae := (*netguard.AddrError)(nil); errors.As(err, &ae) {
			h.refused = err
		}
	})
	if h.refused == nil {
		return nil
	}
	return e.refusal(r, "fetch", privateOf(r.ep.Host, h.refused))
}

// cacheHost is guardCache's verdict on a host, found once.
type cacheHost struct {
	once    sync.Once
	refused error // netguard's refusal, or nil
}
