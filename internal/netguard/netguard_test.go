package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1":            "loopback",
		"127.8.9.10":           "loopback",
		"::1":                  "loopback",
		"::ffff:127.0.0.1":     "loopback",
		"10.1.2.3":             "private",
		"172.16.0.1":           "private",
		"192.168.1.1":          "private",
		"100.100.100.200":      "private",
		"fd00::1":              "private",
		"::ffff:10.0.0.1":      "private",
		"64:ff9b::a00:1":       "private",
		"169.254.169.254":      "link-local",
		"fe80::1":              "link-local",
		"0.0.0.0":              "unspecified",
		"0.1.2.3":              "unspecified",
		"::":                   "unspecified",
		"224.0.0.1":            "link-local",
		"ff02::1":              "link-local",
		"239.1.2.3":            "multicast",
		"ff05::1":              "multicast",
		"ff01::1":              "multicast",
		"8.8.8.8":              "",
		"2001:4860:4860::8888": "",
		"::ffff:93.184.216.34": "",
		"64:ff9b::5db8:d822":   "",
	} {
		if got := Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Classify(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestResolveRefusesANameOfThisMachine(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"localhost", "127.0.0.1", "[::1]", "169.254.169.254", "10.0.0.5"} {
		_, err := Resolve(context.Background(), host)
		var ae *AddrError
		if !errors.As(err, &ae) {
			t.Errorf("Resolve(%q) = %v, want an *AddrError", host, err)
		}
	}
	a, err := Resolve(context.Background(), "93.184.216.34")
	if err != nil || a != netip.MustParseAddr("93.184.216.34") {
		t.Errorf("Resolve(a public literal) = %v, %v", a, err)
	}
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scheme, host string
		port         int
		want         string
	}{
		{"HTTPS", "Git.Corp", 0, "https://git.corp:443"},
		{"http", "10.0.0.5", 0, "http://10.0.0.5:80"},
		{"ssh", "localhost", 0, "ssh://localhost:22"},
		{"git", "169.254.169.254", 0, "git://169.254.169.254:9418"},
		{"http", "[::1]", 8080, "http://[::1]:8080"},
		{"http", "fe80::1%eth0", 80, "http://[fe80::1%25eth0]:80"},
		{"file", "x", 0, ""},
		{"https", "", 0, ""},
	} {
		got, ok := Origin(c.scheme, c.host, c.port)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Origin(%q, %q, %d) = %q, %v; want %q", c.scheme, c.host, c.port, got, ok, c.want)
		}
	}
}

// TestProxyVia: Via answers as x/net/proxy's environment dialer (go-git's
// ssh transport) chooses: the proxy's address, or "" for a direct dial
// (no ALL_PROXY, one that does not parse or has a scheme x/net does not
// know, or a host NO_PROXY names).
func TestProxyVia(t *testing.T) {
	for _, c := range []struct {
		p          Proxy
		addr, want string
	}{
		{Proxy{}, "git.example.com:22", ""},
		{Proxy{All: "socks5://127.0.0.1:1080"}, "git.example.com:22", "127.0.0.1:1080"},
		{Proxy{All: "socks5h://proxy.corp:1080"}, "10.1.2.3:22", "proxy.corp:1080"},
		{Proxy{All: "socks5://127.0.0.1:1080", No: "git.example.com"}, "git.example.com:22", ""},
		{Proxy{All: "socks5://127.0.0.1:1080", No: "*.example.com"}, "git.example.com:22", ""},
		// x/net's rule, not net/http's: a bare domain is that host only.
		{Proxy{All: "socks5://127.0.0.1:1080", No: "example.com"}, "git.example.com:22", "127.0.0.1:1080"},
		{Proxy{All: "socks5://127.0.0.1:1080", No: "10.0.0.0/8"}, "10.1.2.3:22", ""},
		{Proxy{All: "socks5://127.0.0.1:1080", No: "10.0.0.0/8"}, "git.example.com:22", "127.0.0.1:1080"},
		{Proxy{All: "gopher://127.0.0.1:70"}, "git.example.com:22", ""},
		{Proxy{All: "socks5://%zz"}, "git.example.com:22", ""},
	} {
		if got := c.p.Via(c.addr); got != c.want {
			t.Errorf("%+v.Via(%s) = %q, want %q", c.p, c.addr, got, c.want)
		}
	}
}

func TestIsProxy(t *testing.T) {
	ctx := context.Background()
	at := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1080}
	for _, c := range []struct {
		via  string
		want bool
	}{
		{"127.0.0.1:1080", true},
		{"127.0.0.1:1081", false},
		{"127.0.0.2:1080", false},
		{"[::ffff:127.0.0.1]:1080", true},
		{"localhost:1080", true},
		{"no port", false},
	} {
		if got := IsProxy(ctx, c.via, at); got != c.want {
			t.Errorf("IsProxy(%q, %s) = %v, want %v", c.via, at, got, c.want)
		}
	}
}
