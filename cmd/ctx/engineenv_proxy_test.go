package main

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/netguard"
)

// TestEngineOptionsProxy (fixN18): the SOCKS proxy go-git's ssh transport
// follows reaches gitengine's guard as x/net/proxy reads it: ALL_PROXY
// before all_proxy, NO_PROXY before no_proxy (an empty value is unset).
func TestEngineOptionsProxy(t *testing.T) {
	for _, c := range []struct {
		env  environment
		want netguard.Proxy
	}{
		{environment{}, netguard.Proxy{}},
		{environment{"all_proxy=socks5://b:1", "no_proxy=n"}, netguard.Proxy{All: "socks5://b:1", No: "n"}},
		{environment{"ALL_PROXY=socks5://a:1", "all_proxy=socks5://b:1", "NO_PROXY=N", "no_proxy=n"}, netguard.Proxy{All: "socks5://a:1", No: "N"}},
		{environment{"ALL_PROXY=", "all_proxy=socks5://b:1"}, netguard.Proxy{All: "socks5://b:1"}},
	} {
		o, err := c.env.engineOptions()
		if err != nil {
			t.Fatal(err)
		}
		if o.Proxy != c.want {
			t.Errorf("%q: Proxy %+v, want %+v", c.env, o.Proxy, c.want)
		}
	}
}
