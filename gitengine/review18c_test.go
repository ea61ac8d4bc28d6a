package gitengine

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

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

// TestGuardSSHThroughProxy (review18c): with the environment's SOCKS
// proxy (ALL_PROXY, which go-git's ssh transport follows), the address an
// ssh connection reached is the proxy's, not the remote's. A company
// proxy on loopback (or on 10.x) then makes every guarded ssh remote,
// however public its host, "a loopback address" (refused, and the message
// names the wrong address); and a proxy on a public address would let a
// committed ssh URL to a private host through. Here a public-looking host
// (ssh.example.com, resolved by the proxy) is asked through a proxy on
// 127.0.0.1: want it reached (its host key checked, the key offered),
// not refused as loopback. ALL_PROXY is read once per process (x/net's
// envOnce), so the call runs in a child.
func TestGuardSSHThroughProxy(t *testing.T) {
	if os.Getenv("REVIEW18C_CHILD") == "1" {
		o := Options{SSHDir: os.Getenv("REVIEW18C_SSHDIR"), CacheDir: filepath.Join(t.TempDir(), "cache")}
		_, err := New(o).Guarded(allowOrigins()).ListRefs(context.Background(), "ssh://git@ssh.example.com/repo.git")
		if KindOf(err) == KindPrivate {
			t.Fatalf("a public host through the user's proxy: %v, want it reached (the proxy is not the remote)", err)
		}
		return
	}
	t.Parallel()
	o, _ := isolate(t)
	if err := os.MkdirAll(o.SSHDir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	_, userPriv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(userPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.SSHDir, "id_ed25519"), pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	line := "ssh.example.com " + string(ssh.MarshalAuthorizedKey(hostSigner.PublicKey()))
	if err := os.WriteFile(filepath.Join(o.SSHDir, "known_hosts"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
		return nil, errors.New("no")
	}}
	cfg.AddHostKey(hostSigner)
	sshL := listen(t)
	go func() {
		for {
			c, err := sshL.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _, _, _ = ssh.NewServerConn(c, cfg) }()
		}
	}()
	// A SOCKS5 proxy (no auth, CONNECT) that sends every connection to
	// the ssh server, whatever host it is asked for.
	proxyL := listen(t)
	go func() {
		for {
			c, err := proxyL.Accept()
			if err != nil {
				return
			}
			go socks5ToOne(c, sshL.Addr().String())
		}
	}()
	cmd := exec.Command(os.Args[0], "-test.run=^TestGuardSSHThroughProxy$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REVIEW18C_CHILD=1", "REVIEW18C_SSHDIR="+o.SSHDir,
		"ALL_PROXY=socks5://"+proxyL.Addr().String(), "all_proxy=", "NO_PROXY=", "no_proxy=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// socks5ToOne answers one SOCKS5 CONNECT on c (RFC 1928, no auth) and
// relays it to target.
func socks5ToOne(c net.Conn, target string) {
	defer c.Close()
	buf := make([]byte, 262)
	if _, err := io.ReadFull(c, buf[:2]); err != nil {
		return
	}
	if _, err := io.ReadFull(c, buf[:buf[1]]); err != nil {
		return
	}
	if _, err := c.Write([]byte{5, 0}); err != nil {
		return
	}
	if _, err := io.ReadFull(c, buf[:4]); err != nil {
		return
	}
	switch buf[3] {
	case 1:
		_, _ = io.ReadFull(c, buf[:4+2])
	case 4:
		_, _ = io.ReadFull(c, buf[:16+2])
	case 3:
		_, _ = io.ReadFull(c, buf[:1])
		_, _ = io.ReadFull(c, buf[:int(buf[0])+2])
	}
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	if _, err := c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0}); err != nil {
		return
	}
	go func() { _, _ = io.Copy(up, c) }()
	_, _ = io.Copy(c, up)
}
