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
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/ctx-dev/ctx/internal/netguard"
)

// TestGuardSSHThroughProxy (review18c): with the environment's SOCKS
// proxy (ALL_PROXY, which go-git's ssh transport follows), the address an
// ssh connection reaches is the proxy's, not the remote's. Before the fix
// a company proxy on loopback (or on 10.x) made every guarded ssh remote,
// however public its host, "a loopback address" (refused, the message
// naming the wrong address), and a proxy on a public address let a
// committed ssh URL to a private host through. cmd hands ALL_PROXY and
// NO_PROXY to Options.Proxy; a guarded call through the proxy checks the
// remote's host first and accepts the proxy's address. Through a proxy on
// 127.0.0.1 (which relays every connection to a local ssh server):
//   - a public address (203.0.113.7) is reached: its host key is checked
//     and the key offered (the server refuses it: KindAuthFailed);
//   - a private one (10.1.2.3) is refused, naming 10.1.2.3, and the proxy
//     sees no connection;
//   - 127.0.0.1 in NO_PROXY is dialed directly (the ssh server itself,
//     not through the proxy) and refused there as loopback, before any
//     key is offered.
//
// ALL_PROXY is read once per process (x/net's envOnce), so each call runs
// in a child.
func TestGuardSSHThroughProxy(t *testing.T) {
	if os.Getenv("REVIEW18C_CHILD") == "1" {
		o := Options{
			SSHDir: os.Getenv("REVIEW18C_SSHDIR"), CacheDir: filepath.Join(t.TempDir(), "cache"),
			Proxy: netguard.Proxy{All: os.Getenv("ALL_PROXY"), No: os.Getenv("NO_PROXY")}, // as cmd/ctx reads them
		}
		_, err := New(o).Guarded(allowOrigins()).ListRefs(context.Background(), os.Getenv("REVIEW18C_URL"))
		switch want := os.Getenv("REVIEW18C_WANT"); {
		case want == "reached" && KindOf(err) != KindAuthFailed:
			t.Fatalf("a public address through the user's proxy: %v (kind %v), want it reached and the key refused by the server (the proxy is not the remote)", err, KindOf(err))
		case want == "private" && (KindOf(err) != KindPrivate || !strings.Contains(err.Error(), "10.1.2.3")):
			t.Fatalf("a private address through the user's proxy: %v (kind %v), want refused naming 10.1.2.3", err, KindOf(err))
		case want == "loopback" && (KindOf(err) != KindPrivate || !strings.Contains(err.Error(), "loopback")):
			t.Fatalf("loopback in NO_PROXY: %v (kind %v), want refused as loopback", err, KindOf(err))
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
	key := string(ssh.MarshalAuthorizedKey(hostSigner.PublicKey()))
	if err := os.WriteFile(filepath.Join(o.SSHDir, "known_hosts"), []byte("203.0.113.7 "+key+"10.1.2.3 "+key+"127.0.0.1 "+key), 0o600); err != nil {
		t.Fatal(err)
	}
	var offered atomic.Int32
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
		offered.Add(1)
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
	var proxied atomic.Int32
	proxyL := listen(t)
	go func() {
		for {
			c, err := proxyL.Accept()
			if err != nil {
				return
			}
			proxied.Add(1)
			go socks5ToOne(c, sshL.Addr().String())
		}
	}()
	child := func(url, want, noProxy string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestGuardSSHThroughProxy$", "-test.count=1")
		cmd.Env = append(os.Environ(), "REVIEW18C_CHILD=1", "REVIEW18C_SSHDIR="+o.SSHDir,
			"REVIEW18C_URL="+url, "REVIEW18C_WANT="+want,
			"ALL_PROXY=socks5://"+proxyL.Addr().String(), "all_proxy=", "NO_PROXY="+noProxy, "no_proxy=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child (%s): %v\n%s", url, err, out)
		}
	}
	child("ssh://git@203.0.113.7/repo.git", "reached", "")
	if p, k := proxied.Load(), offered.Load(); p != 1 || k == 0 {
		t.Errorf("public address: the proxy saw %d connections, the server %d keys offered; want 1 and some", p, k)
	}
	keys := offered.Load()
	child("ssh://git@10.1.2.3/repo.git", "private", "")
	if p := proxied.Load(); p != 1 {
		t.Errorf("private address: the proxy saw %d more connections, want none", p-1)
	}
	child("ssh://git@"+sshL.Addr().String()+"/repo.git", "loopback", "127.0.0.1")
	if p, k := proxied.Load(), offered.Load(); p != 1 || k != keys {
		t.Errorf("loopback in NO_PROXY: the proxy saw %d more connections, the server %d more keys; want none", p-1, k-keys)
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
