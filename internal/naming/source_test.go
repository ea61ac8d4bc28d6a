package naming

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

func TestIsLocal(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"../local/repo": true, "/abs/repo": true, "repo": true, "./x:y": true, "/a/b:c": true, "file:///x": true,
		"FILE:///x": true, "a b:c": true, "host:": true, `h:\x`: true,
		"https://h/r.git": false, "ssh://git@h/r": false, "git://h/r": false, "git@github.com:acme/r.git": false,
		"host:path": false, "github.com:acme/r": false, "h:22:r": false,
	} {
		if got := IsLocal(s); got != want {
			t.Errorf("IsLocal(%q) = %v, want %v", s, got, want)
		}
		if got, want := IsLocalPath(s), want && !strings.HasPrefix(strings.ToLower(s), "file://"); got != want {
			t.Errorf("IsLocalPath(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzIsLocal: ctx and go-git, which fetches, agree on what is local and
// what is scp-like.
func FuzzIsLocal(f *testing.F) {
	for _, s := range []string{"../r", "/a/b:c", "host:path", "git@h:r.git", "https://h/r", "file:///x", "a b:c", "host:", `h:\x`, "x@y@h:p", "h:22:p", "C:/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ep, err := transport.NewEndpoint(s)
		if err != nil {
			if IsLocal(s) && !HasScheme(s) {
				t.Fatalf("IsLocal(%q), but go-git refuses it: %v", s, err)
			}
			return
		}
		if got, want := IsLocal(s), ep.Protocol == "file"; got != want {
			t.Fatalf("IsLocal(%q) = %v, but go-git reads it as %q", s, got, ep.Protocol)
		}
		if got, want := IsSCPLike(s), !HasScheme(s) && ep.Protocol == "ssh"; got != want {
			t.Fatalf("IsSCPLike(%q) = %v, but go-git reads it as %q", s, got, ep.Protocol)
		}
	})
}

// FuzzLocalPath: LocalPath names the path go-git opens for a local source
// (a relative path is made absolute by go-git, and by ctx against the
// project root), and nothing for a remote one.
func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"../r", "/a/b", "file:///x/y", "FILE:///X", "file://host/p", "file://../x", "file:///a/%2e%2e/b", "file:///a?q#f", "file://", "host:path", "https://h/r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := LocalPath(s)
		ep, err := transport.NewEndpoint(s)
		if err != nil || ep.Protocol != "file" {
			if ok && err == nil {
				t.Fatalf("LocalPath(%q) = %q, but go-git reads it as %q", s, p, ep.Protocol)
			}
			return
		}
		if !ok {
			t.Fatalf("LocalPath(%q) is not local, but go-git opens %q", s, ep.Path)
		}
		if IsLocalPath(s) {
			if want, _ := filepath.Abs(s); want != ep.Path {
				return // go-git's own Abs; ctx joins onto the project root instead
			}
			if p != s {
				t.Fatalf("LocalPath(%q) = %q, want it as written", s, p)
			}
			return
		}
		if p != ep.Path {
			t.Fatalf("LocalPath(%q) = %q, go-git opens %q", s, p, ep.Path)
		}
	})
}

func TestLocalPath(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"../r": "../r", "/a/b": "/a/b", "file:///x/y": "/x/y", "FILE:///X": "/X", "file://host/p": "/p",
		"file://../x": "/x", "file:///a/%2e%2e/b": "/a/../b", "file:///a?q#f": "/a?q#f",
	} {
		if got, ok := LocalPath(s); !ok || got != want {
			t.Errorf("LocalPath(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
	for _, s := range []string{"https://h/r", "git@h:r", "ssh://h/r"} {
		if got, ok := LocalPath(s); ok {
			t.Errorf("LocalPath(%q) = %q, want not local", s, got)
		}
	}
}

func TestCacheKey(t *testing.T) {
	t.Parallel()
	// Keys written by ctx before the rule moved here: a changed key would
	// orphan every existing cache.
	for _, tc := range []struct {
		protocol, host string
		port           int
		path, want     string
	}{
		{"https", "GitHub.com", 0, "/acme/Docs.git/", "github.com_acme_Docs-b5022b29b271"},
		{"ssh", "host", 2222, "/x/y", "host_2222_x_y-fd55676753a0"},
		{"ssh", "github.com", 22, "acme/eng-docs.git", "github.com_22_acme_eng-docs-810a3ffd29e8"},
		{"https", "h", 0, "/a/very/long/path/that/goes/on/and/on/and/on/beyond/sixty/bytes/of/text.git", "h_a_very_long_path_that_goes_on_and_on_and_on_beyond_sixty_b-41439e62ea9f"},
		{"http", "127.0.0.1", 8080, "/ü/r", "127.0.0.1_8080___r-603a622d1c9c"},
	} {
		if got := CacheKey(tc.protocol, tc.host, tc.port, tc.path); got != tc.want {
			t.Errorf("CacheKey(%q, %q, %d, %q) = %q, want %q", tc.protocol, tc.host, tc.port, tc.path, got, tc.want)
		}
	}
	if CacheKey("https", "h", 0, "/a/b") == CacheKey("https", "h", 0, "/a_b") {
		t.Error("two repositories share a key")
	}
}

// FuzzCacheKey: every key is one safe folder name, the same for every
// spelling of a repository.
func FuzzCacheKey(f *testing.F) {
	f.Add("https", "GitHub.com", 0, "/a/b.git")
	f.Add("ssh", "..", 22, "../..")
	f.Fuzz(func(t *testing.T, protocol, host string, port int, path string) {
		k := CacheKey(protocol, host, port, path)
		if err := CheckName(k); err != nil {
			t.Fatalf("CacheKey(%q, %q, %d, %q) = %q: %v", protocol, host, port, path, k, err)
		}
		trimmed := strings.TrimSuffix(path, "/")
		//lint:ignore SA6005 the question is whether ToUpper then ToLower gives host's ToLower back, which EqualFold does not answer
		if strings.HasSuffix(trimmed, ".git") || strings.ToLower(host) != strings.ToLower(strings.ToUpper(host)) {
			return
		}
		if k2 := CacheKey(protocol, strings.ToUpper(host), port, trimmed+".git/"); k2 != k {
			t.Fatalf("CacheKey: %q and %q for one repository", k, k2)
		}
	})
}

func TestRepoKey(t *testing.T) {
	for addr, want := range map[string]string{
		"https://github.com/kubernetes/enhancements.git":  "github.com/kubernetes/enhancements",
		"git@github.com:Kubernetes/enhancements.git":      "github.com/kubernetes/enhancements",
		"ssh://git@GitHub.com:22/kubernetes/enhancements": "github.com/kubernetes/enhancements",
		"https://user:pw@www.github.com/o/r/":             "github.com/o/r",
		"https://gitlab.com/group//sub/r.git/":            "gitlab.com/group/sub/r",
		"git@git.corp:2222:team/docs":                     "git.corp/team/docs",
		"http://git.corp:8080/team/docs":                  "git.corp/team/docs",
		"./repos/hub/":                                    "local:repos/hub",
		"/srv/git/hub.git":                                "local:/srv/git/hub.git",
		"file:///srv/git/hub.git":                         "local:/srv/git/hub.git",
		"  ":                                              "",
	} {
		if got := RepoKey(addr); got != want {
			t.Errorf("RepoKey(%q) = %q, want %q", addr, got, want)
		}
	}
	// Two repositories stay two keys.
	if RepoKey("https://github.com/o/r") == RepoKey("https://github.com/o/r2") ||
		RepoKey("https://github.com/o/r") == RepoKey("https://gitlab.com/o/r") {
		t.Error("different repositories share a key")
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://tok@github.com/o/r.git":      "https://***@github.com/o/r.git",
		"https://alice:pw@hub.example/r.json": "https://***@hub.example/r.json",
		"git@github.com:o/r.git":              "git@github.com:o/r.git",
		"https://github.com/o/r.git":          "https://github.com/o/r.git",
		"/local/path":                         "/local/path",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
