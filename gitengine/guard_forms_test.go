package gitengine

import (
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestGuardAddressForms (review18c): the spellings of a loopback address
// that a URL parser, a resolver or the kernel accept (decimal, octal, hex
// and short IPv4, IPv4-mapped IPv6, 0.0.0.0, a trailing-dot name) never
// reach a server on 127.0.0.1 through a guarded Engine; each is refused
// (or does not resolve), and the server sees no request.
func TestGuardAddressForms(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	o, _ := isolate(t)
	ctx := context.Background()
	port := s.URL[strings.LastIndexByte(s.URL, ':')+1:]
	g := New(o).Guarded(allowOrigins())
	for _, host := range []string{
		"127.0.0.1", "2130706433", "017700000001", "0x7f000001", "127.1", "0177.0.0.1",
		"[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::1]", "0.0.0.0", "[::]", "localhost.", "LOCALHOST",
	} {
		url := "http://" + host + ":" + port + "/repo.git"
		_, err := g.ListRefs(ctx, url)
		if err == nil {
			t.Errorf("%s: listed, want refused", url)
		}
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("the server saw %d requests from guarded calls, want 0", n)
	}
}
