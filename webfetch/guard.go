package webfetch

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// privateAddrError is what the dialer's Control returns for an address the
// SSRF guard refuses; Fetch turns it into a KindPrivate *Error naming the
// host of the request.
type privateAddrError struct {
	addr netip.Addr
	what string
}

func (e *privateAddrError) Error() string {
	return fmt.Sprintf("%s is a %s address", e.addr, e.what)
}

var (
	// Not in netip's predicates: shared address space (carrier-grade NAT,
	// also some clouds' metadata services), "this network", NAT64.
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
)

// classifyAddr says which kind of non-public address a is, or "" when a is
// a public unicast address. IPv4-mapped IPv6 and NAT64 addresses are judged
// by the IPv4 address inside.
func classifyAddr(a netip.Addr) string {
	a = a.Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate(), cgnat.Contains(a):
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified(), thisNetwork.Contains(a):
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case !a.IsValid():
		return "invalid"
	}
	return ""
}

// control is the dialer's Control: it runs after DNS, on the address about to
// be connected, so a host name that resolves to a private address (or a
// redirect to one) is refused as a literal address is. public, a test seam,
// makes one listener count as public.
func control(public func(netip.AddrPort) bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("cannot check address %q: %w", address, err)
		}
		if public != nil && public(ap) {
			return nil
		}
		if what := classifyAddr(ap.Addr()); what != "" {
			return &privateAddrError{addr: ap.Addr().Unmap(), what: what}
		}
		return nil
	}
}

// newTransport is an http.Transport that uses no proxy (a proxy would be
// dialed instead of the host, around the guard, and its settings come from
// the environment) and, when guarded, refuses non-public addresses at dial
// time.
func newTransport(guarded bool, public func(netip.AddrPort) bool, tlsConfig *tls.Config) *http.Transport {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if guarded {
		d.Control = control(public)
	}
	return &http.Transport{
		Proxy:                  nil,
		TLSClientConfig:        tlsConfig,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           32,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  1 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
}
