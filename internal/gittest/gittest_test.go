package gittest

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setup(t *testing.T) (root, commit string) {
	t.Helper()
	if !Available() {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	commit = NewRepo(t, src, map[string]string{
		"README.md":     "# hello\n",
		"docs/a/one.md": "one\n",
	})
	if got := MustGit(t, src, "rev-parse", "HEAD"); got != commit {
		t.Fatalf("rev-parse HEAD = %s, want %s", got, commit)
	}
	root = filepath.Join(tmp, "root")
	MustGit(t, tmp, "clone", "-q", "--bare", src, filepath.Join(root, "repo.git"))
	if err := os.WriteFile(filepath.Join(root, "registry.json"), []byte(`{"packages":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, commit
}

func TestStableCommitID(t *testing.T) {
	t.Parallel()
	if !Available() {
		t.Skip("git not installed")
	}
	a := NewRepo(t, t.TempDir(), map[string]string{"f": "x\n"})
	b := NewRepo(t, t.TempDir(), map[string]string{"f": "x\n"})
	if a != b {
		t.Fatalf("same content and fixed dates gave different commits %s and %s", a, b)
	}
}

func TestServeClone(t *testing.T) {
	t.Parallel()
	root, commit := setup(t)
	for _, o := range []ServeOptions{{}, {DisableFilter: true}} {
		s, err := Serve(root, o)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(t.TempDir(), "clone")
		MustGit(t, root, "clone", "-q", "--filter=blob:none", "--depth", "1", s.URL+"/repo.git", dst)
		if got := MustGit(t, dst, "rev-parse", "HEAD"); got != commit {
			t.Errorf("cloned HEAD = %s, want %s", got, commit)
		}
		b, err := os.ReadFile(filepath.Join(dst, "docs", "a", "one.md"))
		if err != nil || string(b) != "one\n" {
			t.Errorf("docs/a/one.md = %q, %v", b, err)
		}
		// The v0 advertisement lists `filter` only when filtering is allowed.
		resp, err := http.Get(s.URL + "/repo.git/info/refs?service=git-upload-pack")
		if err != nil {
			t.Fatal(err)
		}
		adv, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.Contains(string(adv), " filter"); got == o.DisableFilter {
			t.Errorf("DisableFilter=%v: advertisement has filter = %v:\n%s", o.DisableFilter, got, adv)
		}
		if s.BytesSent() == 0 || s.Requests() < 2 {
			t.Errorf("counters: bytes %d, requests %d", s.BytesSent(), s.Requests())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestServeStaticAndAuth(t *testing.T) {
	t.Parallel()
	root, _ := setup(t)
	s, err := Serve(root, ServeOptions{BasicAuth: "alice:secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	resp, err := http.Get(s.URL + "/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Fatalf("no credentials: status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	req, _ := http.NewRequest("GET", s.URL+"/registry.json", nil)
	req.SetBasicAuth("alice", "secret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"packages":[]}` {
		t.Fatalf("static file: status %d body %q", resp.StatusCode, body)
	}

	if _, err := Git(root, "ls-remote", s.URL+"/repo.git"); err == nil {
		t.Fatal("ls-remote without credentials succeeded")
	}
	u := strings.Replace(s.URL, "http://", "http://alice:secret@", 1)
	if out := MustGit(t, root, "ls-remote", u+"/repo.git"); !strings.Contains(out, "refs/heads/master") {
		t.Fatalf("ls-remote with credentials: %q", out)
	}
}
