// Package netguard is the one rule of which network addresses a fetch
// named by someone else may reach: no loopback, private, link-local,
// shared (carrier-grade NAT), unspecified or multicast address (Classify),
// checked where the address is known for sure, at dial time after DNS
// (Control), so a host name that resolves to 127.0.0.1 is refused as the
// literal is (through a proxy, the host is checked before the request:
// Transport for http, Proxy for ssh). webfetch (https sources) and
// gitengine (git remotes) both call it; whose word lifts it (the user's
// allowance, by origin) is project's, and the callers carry the answer
// here.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/net/proxy"
)

// AddrError is what Control returns for an address the guard refuses.
type AddrError struct {
	Addr netip.Addr
	What string // Classify's word: "loopback", "private", "link-local", ...
}

func (e *AddrError) Error() string {
	return fmt.Sprintf("%s is a %s address", e.Addr, e.What)
}

// Not in netip's predicates: shared address space (carrier-grade NAT,
// also some clouds' metadata services), "this network", NAT64.
func cgnat() netip.Prefix       { return netip.MustParsePrefix("100.64.0.0/10") }
func thisNetwork() netip.Prefix { return netip.MustParsePrefix("0.0.0.0/8") }
func nat64() netip.Prefix       { return netip.MustParsePrefix("64:ff9b::/96") }

// Classify says which kind of non-public address a is, or "" when a is a
// public unicast address. IPv4-mapped IPv6 and NAT64 addresses are judged
// by the IPv4 address inside.
func Classify(a netip.Addr) string {
	a = a.Unmap()
	if nat64().Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate(), cgnat().Contains(a):
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified(), thisNetwork().Contains(a):
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case !a.IsValid():
		return "invalid"
	}
	return ""
}

// Check returns an *AddrError when the guard refuses address (an
// ip:port as a dialer gives it, or a net.Addr's String), nil for a public
// one. public, a test seam, makes an address count as public.
func Check(address string, public func(netip.AddrPort) bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("cannot check address %q: %w", address, err)
	}
	if public != nil && public(ap) {
		return nil
	}
	if what := Classify(ap.Addr()); what != "" {
		return &AddrError{Addr: ap.Addr().Unmap(), What: what}
	}
	return nil
}

// Control is a net.Dialer's Control that runs Check on the address about
// to be connected: after DNS, so a host name that resolves to a private
// address (or a redirect to one) is refused as a literal address is.
func Control(public func(netip.AddrPort) bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		return Check(address, public)
	}
}

// Resolve looks host up and returns one address the guard allows to dial
// in its place (pinned: a second lookup could answer otherwise), or an
// *AddrError when any of its addresses is refused (a name that resolves
// to a private address among public ones is refused whole). For a
// transport that lets its caller choose no dialer (git://); the others
// check at dial time with Control.
func Resolve(ctx context.Context, host string) (netip.Addr, error) {
	host = strings.Trim(host, "[]")
	if a, err := netip.ParseAddr(host); err == nil {
		return a, Check(netip.AddrPortFrom(a, 1).String(), nil)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, err
	}
	if len(addrs) == 0 {
		return netip.Addr{}, errors.New("no address for " + strconv.Quote(host))
	}
	for _, a := range addrs {
		if err := Check(netip.AddrPortFrom(a, 1).String(), nil); err != nil {
			return netip.Addr{}, fmt.Errorf("%s resolves to %w", host, err)
		}
	}
	return addrs[0].Unmap(), nil
}

// Origin is how the user's allowances name a place on the network:
// scheme://host:port, scheme and host in lower case, the port always
// written (DefaultPort's when port is 0), an IPv6 host in brackets with
// its zone (given decoded, as url.URL.Hostname gives it) written as a URL
// writes it ("%25"), so that an origin parses again. ok is false for a scheme with no default port, or no host.
func Origin(scheme, host string, port int) (string, bool) {
	scheme, host = strings.ToLower(scheme), strings.ToLower(strings.Trim(host, "[]"))
	if host == "" {
		return "", false
	}
	if port == 0 {
		if port = DefaultPort(scheme); port == 0 {
			return "", false
		}
	}
	if zone := strings.IndexByte(host, '%'); zone >= 0 {
		host = host[:zone] + "%25" + host[zone+1:]
	}
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)), true
}

// DefaultPort is the port a URL of scheme dials when it names none; 0 for
// a scheme that reaches no network (file) or that ctx does not know.
func DefaultPort(scheme string) int {
	switch strings.ToLower(scheme) {
	case "https":
		return 443
	case "http":
		return 80
	case "ssh":
		return 22
	case "git":
		return 9418
	}
	return 0
}

// Transport is an http.RoundTripper that keeps every request (each
// redirect too) off the private network: sent through open's proxy (the
// environment's) when it takes the request, once the request's host
// resolves to public addresses only (checked, not pinned: the proxy
// resolves again); else through direct, whose dialer must refuse the
// private network at dial time (Control). The one rule of a guarded
// request through a proxy: gitengine's guarded remotes and the registry
// the committed manifest names both use it.
type Transport struct {
	Open   *http.Transport // proxied requests (its Proxy decides)
	Direct *http.Transport // the others; Proxy nil, dialer with Control
}

func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.Open != nil && t.Open.Proxy != nil {
		if p, err := t.Open.Proxy(req); err == nil && p != nil {
			if _, err := Resolve(req.Context(), req.URL.Hostname()); err != nil {
				return nil, err
			}
			return t.Open.RoundTrip(req)
		}
	}
	return t.Direct.RoundTrip(req)
}

// Proxy is the environment's proxy of connections that are not HTTP
// requests (ssh): ALL_PROXY and NO_PROXY as golang.org/x/net/proxy reads
// them (go-git's ssh transport dials with proxy.Dial, which does). cmd/ctx
// reads the variables; the packages below it take them here.
type Proxy struct {
	All string // ALL_PROXY (else all_proxy): the proxy's URL
	No  string // NO_PROXY (else no_proxy): the hosts reached directly
}

// Via returns the address (host:port) of the proxy that x/net/proxy's
// environment dialer sends a connection to addr (host:port) through, or
// "" when it dials addr directly. It asks x/net's own rule
// (proxy.FromURL, PerHost) with dialers that record the address they are
// asked for and dial nothing.
func (p Proxy) Via(addr string) string {
	if p.All == "" {
		return ""
	}
	u, err := url.Parse(p.All)
	if err != nil {
		return ""
	}
	var asked string
	record := recordDialer(func(a string) { asked = a })
	via, err := proxy.FromURL(u, record)
	if err != nil {
		return ""
	}
	d := via
	if p.No != "" {
		ph := proxy.NewPerHost(via, recordDialer(func(string) { asked = "" }))
		ph.AddFromString(p.No)
		d = ph
	}
	_, _ = d.Dial("tcp", addr)
	return asked
}

// recordDialer is a proxy.Dialer that tells the address it is asked to
// dial and dials nothing.
type recordDialer func(addr string)

func (r recordDialer) Dial(_, addr string) (net.Conn, error) {
	r(addr)
	return nil, errors.New("netguard: recorded, not dialed")
}

// IsProxy reports whether remote (the address a connection reached) is
// the proxy at via (Via's answer: host:port, the host a name or an
// address): the same port, and an address of the host.
func IsProxy(ctx context.Context, via string, remote net.Addr) bool {
	host, port, err := net.SplitHostPort(via)
	if err != nil {
		return false
	}
	ap, err := netip.ParseAddrPort(remote.String())
	if err != nil || strconv.Itoa(int(ap.Port())) != port {
		return false
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return a.Unmap() == ap.Addr().Unmap()
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if a.Unmap() == ap.Addr().Unmap() {
			return true
		}
	}
	return false
}
