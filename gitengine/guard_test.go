package gitengine

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"golang.org/x/crypto/ssh"
)

// allowOrigins is a Guard that allows exactly origins.
func allowOrigins(origins ...string) Guard {
	return Guard{Hint: "allow it (test)", Allowed: func(o string) bool {
		for _, a := range origins {
			if a == o {
				return true
			}
		}
		return false
	}}
}

func originOf(t *testing.T, raw string) string {
	t.Helper()
	r, err := parseRemote(raw)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := remoteOrigin(r)
	if !ok {
		t.Fatalf("no origin for %s", raw)
	}
	return o
}

func wantPrivate(t *testing.T, what string, err error) {
	t.Helper()
	var pe *PrivateError
	if KindOf(err) != KindPrivate || !errors.As(err, &pe) {
		t.Fatalf("%s: %v (kind %v), want the private network refused", what, err, KindOf(err))
	}
	if !strings.Contains(err.Error(), "allow it (test)") {
		t.Errorf("%s: %v, want the Guard's hint", what, err)
	}
}

// TestGuardHTTP (netguard18): a guarded Engine's http remote on loopback
// is refused at dial time, by address and by a host name that resolves to
// it, before any request reaches the server; its allowed origin is
// reached; a redirect from the allowed origin to another is refused; and
// an answer an unguarded call remembered is not a guarded call's.
func TestGuardHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	o, _ := isolate(t)
	ctx := context.Background()
	url := s.URL + "/repo.git"
	byName := strings.Replace(url, "127.0.0.1", "localhost", 1)

	open := New(o)
	if _, err := open.ListRefs(ctx, url); err != nil {
		t.Fatalf("unguarded: %v", err)
	}
	s.ResetCounters()
	g := open.Guarded(allowOrigins())
	_, err := g.ListRefs(ctx, url)
	wantPrivate(t, "guarded, by address", err)
	_, err = g.Resolve(ctx, byName, "")
	wantPrivate(t, "guarded, by name", err)
	if !strings.Contains(err.Error(), "\"localhost\" resolves to 127.0.0.1") {
		t.Errorf("by name: %v, want the name and its address", err)
	}
	_, err = g.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Ref: "master", Path: "docs"}, filepath.Join(t.TempDir(), "stage"))
	wantPrivate(t, "guarded materialize", err)
	if n := s.Requests(); n != 0 {
		t.Errorf("the server saw %d requests from guarded calls, want 0", n)
	}

	allowed := New(o).Guarded(allowOrigins(originOf(t, url)))
	if _, err := allowed.Resolve(ctx, url, ""); err != nil {
		t.Fatalf("allowed origin: %v", err)
	}

	// A redirect from the allowed origin to another private one.
	var hops atomic.Int64
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, s.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(redir.Close)
	s.ResetCounters()
	_, err = New(o).Guarded(allowOrigins(originOf(t, redir.URL+"/repo.git"))).ListRefs(ctx, redir.URL+"/repo.git")
	// Not the Guard's hint, which allows the origin named (allowed
	// already): the refusal names where the server redirected (red20).
	var pe *PrivateError
	if KindOf(err) != KindPrivate || !errors.As(err, &pe) || pe.Redirect != originOf(t, s.URL+"/repo.git") ||
		!strings.Contains(err.Error(), "redirected to") || strings.Contains(err.Error(), "allow it (test)") {
		t.Errorf("redirect to another origin: %v, want the private network refused, naming the origin redirected to, without the Guard's hint", err)
	}
	if hops.Load() == 0 || s.Requests() != 0 {
		t.Errorf("redirect: %d requests to the allowed origin, %d to the other; want some and 0", hops.Load(), s.Requests())
	}
}

// TestGuardGitProtocol: git:// dials by itself, so the host is resolved
// and checked before (and the connection pinned to the address checked).
func TestGuardGitProtocol(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d, err := gittest.StartDaemon(f.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	o, _ := isolate(t)
	ctx := context.Background()
	url := d.URL + "/repo.git"
	_, err = New(o).Guarded(allowOrigins()).ListRefs(ctx, url)
	wantPrivate(t, "git:// guarded", err)
	_, err = New(o).Guarded(allowOrigins()).ListRefs(ctx, strings.Replace(url, "127.0.0.1", "localhost", 1))
	wantPrivate(t, "git:// guarded, by name", err)
	if _, err := New(o).Guarded(allowOrigins(originOf(t, url))).ListRefs(ctx, url); err != nil {
		t.Errorf("git:// allowed: %v", err)
	}
}

// TestGuardSSH: an ssh remote on loopback is refused on the address the
// connection reached, before its host key is accepted, so no key is
// offered; unguarded, the same server is asked to authenticate.
func TestGuardSSH(t *testing.T) {
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
	var offered atomic.Int64
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
		offered.Add(1)
		return nil, errors.New("no")
	}}
	cfg.AddHostKey(hostSigner)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _, _, _ = ssh.NewServerConn(c, cfg) }()
		}
	}()
	addr := l.Addr().String()
	line := "[127.0.0.1]:" + addr[strings.LastIndexByte(addr, ':')+1:] + " " + string(ssh.MarshalAuthorizedKey(hostSigner.PublicKey()))
	if err := os.WriteFile(filepath.Join(o.SSHDir, "known_hosts"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "ssh://git@" + addr + "/repo.git"
	ctx := context.Background()
	_, err = New(o).Guarded(allowOrigins()).ListRefs(ctx, url)
	wantPrivate(t, "ssh guarded", err)
	if n := offered.Load(); n != 0 {
		t.Errorf("guarded: the server was offered %d keys, want 0", n)
	}
	_, err = New(o).ListRefs(ctx, url)
	if KindOf(err) == KindPrivate || KindOf(err) == KindHostKey || offered.Load() == 0 {
		t.Errorf("unguarded: %v (kind %v), %d keys offered; want the key offered and refused", err, KindOf(err), offered.Load())
	}
}

// TestGuardOrigin: a remote's origin is netguard.Origin's, the one the
// user's allowances are written in.
func TestGuardOrigin(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://Git.Corp/x.git":         "https://git.corp:443",
		"http://10.0.0.5:8080/x":         "http://10.0.0.5:8080",
		"git@localhost:o/r.git":          "ssh://localhost:22",
		"ssh://localhost:2222/r":         "ssh://localhost:2222",
		"git://169.254.169.254/":         "git://169.254.169.254:9418",
		"http://[::1]:8080/r.git":        "http://[::1]:8080",
		"https://user:pw@10.0.0.5/r.git": "https://10.0.0.5:443",
	} {
		if got := originOf(t, raw); got != want {
			t.Errorf("origin(%s) = %s, want %s", raw, got, want)
		}
	}
	if _, ok := Origin("/srv/r.git"); ok {
		t.Errorf("a local repository has an origin")
	}
}
