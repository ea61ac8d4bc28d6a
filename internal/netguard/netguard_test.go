package netguard

import (
	"context"
	"errors"
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
