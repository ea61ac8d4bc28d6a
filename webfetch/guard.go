package webfetch

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/ctx-dev/ctx/internal/netguard"
)

// newTransport is an http.Transport that uses no proxy (a proxy would be
// dialed instead of the host, around the guard, and its settings come from
// the environment) and, when guarded, refuses non-public addresses at dial
// time (internal/netguard, the one rule gitengine's remotes keep too).
func newTransport(guarded bool, public func(netip.AddrPort) bool, tlsConfig *tls.Config) *http.Transport {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if guarded {
		d.Control = netguard.Control(public)
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
