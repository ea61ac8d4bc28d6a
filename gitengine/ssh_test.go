package gitengine

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

func TestParseRemote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, proto, user, host, local string }{
		{"git@github.com:o/r.git", "ssh", "git", "github.com", ""},
		{"ssh://github.com/o/r.git", "ssh", "git", "github.com", ""},
		{"ssh://alice@example.com:2222/r", "ssh", "alice", "example.com", ""},
		{"https://tok:x@github.com/o/r", "https", "tok", "github.com", ""},
		{"file:///srv/r.git", "file", "", "", "/srv/r.git"},
		{"/srv/r.git", "file", "", "", "/srv/r.git"},
	} {
		r, err := parseRemote(tc.in)
		if err != nil {
			t.Errorf("parseRemote(%q): %v", tc.in, err)
			continue
		}
		if r.ep.Protocol != tc.proto || r.user != tc.user || r.ep.Host != tc.host || r.local != tc.local {
			t.Errorf("parseRemote(%q) = proto %s user %s host %s local %s", tc.in, r.ep.Protocol, r.user, r.ep.Host, r.local)
		}
		if r.ep.User != "" || r.ep.Password != "" {
			t.Errorf("parseRemote(%q): endpoint keeps credentials", tc.in)
		}
	}
	if _, err := parseRemote(""); err == nil {
		t.Errorf("empty URL accepted")
	}
}

func TestSSHAuth(t *testing.T) {
	t.Parallel()
	o, home := isolate(t)
	// No known_hosts: strict checking cannot work, and says how to fix it.
	e := New(o)
	err := e.CheckAccess(context.Background(), "ssh://git@127.0.0.1:1/r.git")
	if KindOf(err) != KindHostKey {
		t.Errorf("no known_hosts: %v (kind %v), want host key problem", err, KindOf(err))
	}

	sshDir := filepath.Join(home, ".ssh")
	if err := os.MkdirAll(sshDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sshDir, "known_hosts"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sshAuth("git", "example.com"); err == nil {
		t.Errorf("no agent and no key: got an auth method")
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sshDir, "id_ed25519"), pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	auth, err := e.sshAuth("git", "example.com")
	if err != nil {
		t.Fatal(err)
	}
	pk, ok := auth.(*gitssh.PublicKeys)
	if !ok || pk.User != "git" || pk.HostKeyCallback == nil {
		t.Fatalf("auth = %#v, want public keys for git with a host key check", auth)
	}
}

// TestSSHAgentOption: the agent is the one Options.SSHAgent names (the
// package reads no SSH_AUTH_SOCK), tried before the keys of SSHDir.
func TestSSHAgentOption(t *testing.T) {
	t.Parallel()
	o, home := isolate(t)
	if err := os.MkdirAll(o.SSHDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.SSHDir, "known_hosts"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(home, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix sockets: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	keyring := agent.NewKeyring()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _ = agent.ServeAgent(keyring, c) }()
		}
	}()

	if _, err := New(o).sshAuth("git", "example.com"); err == nil {
		t.Errorf("no SSHAgent and no key: got an auth method")
	}
	o.SSHAgent = sock
	auth, err := New(o).sshAuth("git", "example.com")
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := auth.(*gitssh.PublicKeysCallback); !ok || a.User != "git" || a.HostKeyCallback == nil {
		t.Fatalf("auth = %#v, want the agent for git with a host key check", auth)
	}
	o.SSHDir = ""
	if _, err := New(o).sshAuth("git", "example.com"); err == nil || !strings.Contains(err.Error(), "known_hosts") {
		t.Errorf("no SSHDir: %v, want a known_hosts error", err)
	}
}

// TestSSHNoKnownHostsSaysItOnce: with no known_hosts, the error is a
// KindHostKey naming the file, with one hint naming the host and the
// file (walk22: the hint came twice, and go-git's words sent the user to
// SSH_KNOWN_HOSTS, which ctx never reads).
func TestSSHNoKnownHostsSaysItOnce(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	_, err := New(o).Resolve(context.Background(), "git@example.com:acme/hub.git", "")
	if KindOf(err) != KindHostKey {
		t.Fatalf("err = %v (kind %v), want KindHostKey", err, KindOf(err))
	}
	msg := err.Error()
	known := filepath.Join(o.SSHDir, "known_hosts")
	if !strings.Contains(msg, "read "+known+": no such file or directory") {
		t.Errorf("err = %q, want it to name %s as missing", msg, known)
	}
	if n := strings.Count(msg, "ssh-keyscan"); n != 1 || !strings.Contains(msg, "ssh-keyscan example.com >> "+known) {
		t.Errorf("err = %q, want one hint: ssh-keyscan example.com >> %s", msg, known)
	}
	if strings.Contains(msg, "SSH_KNOWN_HOSTS") {
		t.Errorf("err = %q sends the user to SSH_KNOWN_HOSTS, which ctx does not read", msg)
	}
}

// TestSSHNoKnownHostsHintIsSafe: the ssh-keyscan command the hint gives
// is one a user may paste into a shell, and its host comes from a
// manifest or a registry, which are untrusted: a host a shell would run
// (`id`, $(id), ;, a leading -) gets no command, only the file to add the
// key to. A port other than 22 is in the command (-p), as known_hosts
// keeps such a host's key as [host]:port (rv-walk22).
func TestSSHNoKnownHostsHintIsSafe(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	known := filepath.Join(o.SSHDir, "known_hosts")
	for _, tc := range []struct{ url, want, notWant string }{
		{"git@ex;id;ample.com:acme/hub.git", "then add it to " + known, "ssh-keyscan"},
		{"git@`id`:acme/hub.git", "then add it to " + known, "ssh-keyscan"},
		{"git@ex$(id)ample:acme/hub.git", "then add it to " + known, "ssh-keyscan"},
		{"git@-oProxyCommand=id:acme/hub.git", "then add it to " + known, "ssh-keyscan"},
		{"ssh://git@example.com:2222/acme/hub.git", "ssh-keyscan -p 2222 example.com >> " + known, "ssh-keyscan example.com"},
		{"ssh://git@example.com/acme/hub.git", "ssh-keyscan example.com >> " + known, "-p "},
	} {
		_, err := New(o).Resolve(context.Background(), tc.url, "")
		if KindOf(err) != KindHostKey {
			t.Errorf("%s: err = %v (kind %v), want KindHostKey", tc.url, err, KindOf(err))
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.notWant) {
			t.Errorf("%s: err = %q, want %q and not %q", tc.url, msg, tc.want, tc.notWant)
		}
	}
}

// TestSSHBadKnownHostsSaysToFixIt: a known_hosts that is there but cannot
// be read as one (a line that is no host key) is named with its fault,
// and the hint is to fix the file, not to add a key to it, which would
// leave the bad line where it is (rv-walk22).
func TestSSHBadKnownHostsSaysToFixIt(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	if err := os.MkdirAll(o.SSHDir, 0o700); err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(o.SSHDir, "known_hosts")
	if err := os.WriteFile(known, []byte("example.com ssh-ed25519 not-base64!\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(o).Resolve(context.Background(), "git@example.com:acme/hub.git", "")
	if KindOf(err) != KindHostKey {
		t.Fatalf("err = %v (kind %v), want KindHostKey", err, KindOf(err))
	}
	msg := err.Error()
	if !strings.Contains(msg, "fix or move "+known) || strings.Contains(msg, "ssh-keyscan") {
		t.Errorf("err = %q, want the hint to fix or move %s, and no ssh-keyscan", msg, known)
	}
}
