package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLocation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "reg.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plain, DefaultFileName), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want Location
	}{
		{file, Location{Kind: KindFile, URL: file}},
		{"file://" + file, Location{Kind: KindFile, URL: file}},
		{plain, Location{Kind: KindFile, URL: filepath.Join(plain, DefaultFileName)}},
		{repo, Location{Kind: KindGit, URL: repo, File: DefaultFileName}},
		{repo + "#hub/reg.json@v2", Location{Kind: KindGit, URL: repo, File: "hub/reg.json", Ref: "v2"}},
		{repo + "@main", Location{Kind: KindGit, URL: repo, File: DefaultFileName, Ref: "main"}},
		{"https://hub.example/ctx-registry.json", Location{Kind: KindHTTP, URL: "https://hub.example/ctx-registry.json"}},
		{"https://git.example/acme/hub.git", Location{Kind: KindGit, URL: "https://git.example/acme/hub.git", File: DefaultFileName}},
		{"https://git.example/acme/hub.git@v1#x.json", Location{Kind: KindGit, URL: "https://git.example/acme/hub.git", File: "x.json", Ref: "v1"}},
		{"https://git.example/acme/hub#@v1", Location{Kind: KindGit, URL: "https://git.example/acme/hub", File: DefaultFileName, Ref: "v1"}},
		{"git+https://git.example/acme/hub", Location{Kind: KindGit, URL: "https://git.example/acme/hub", File: DefaultFileName}},
		{"git@github.com:acme/hub.git#reg/nocaap-registry.json", Location{Kind: KindGit, URL: "git@github.com:acme/hub.git", File: "reg/nocaap-registry.json"}},
		// scp-like without '@' or '.' in the host: git and go-git dial ssh,
		// so this is a git location, not a local file named "gitserver:...".
		{"gitserver:acme/hub#reg.json", Location{Kind: KindGit, URL: "gitserver:acme/hub", File: "reg.json"}},
		{"ssh://git@host/acme/hub.git@dev", Location{Kind: KindGit, URL: "ssh://git@host/acme/hub.git", File: DefaultFileName, Ref: "dev"}},
		{"https://github.com/acme/hub", Location{Kind: KindGit, URL: "https://github.com/acme/hub.git", File: DefaultFileName}},
		{"https://github.com/acme/hub/blob/main/registries/nocaap-registry.json", Location{Kind: KindGit, URL: "https://github.com/acme/hub.git", File: "registries/nocaap-registry.json", Ref: "main"}},
		{"https://github.com/acme/hub/tree/v2/registries", Location{Kind: KindGit, URL: "https://github.com/acme/hub.git", File: "registries/" + DefaultFileName, Ref: "v2"}},
		{"https://github.com/acme/hub/tree/main", Location{Kind: KindGit, URL: "https://github.com/acme/hub.git", File: DefaultFileName, Ref: "main"}},
		{"https://gitlab.com/acme/sub/hub/-/blob/main/reg/x.json", Location{Kind: KindGit, URL: "https://gitlab.com/acme/sub/hub.git", File: "reg/x.json", Ref: "main"}},
		{"https://git.acme.dev/hub/-/tree/v1", Location{Kind: KindGit, URL: "https://git.acme.dev/hub.git", File: DefaultFileName, Ref: "v1"}},
		{"https://raw.githubusercontent.com/acme/hub/main/ctx-registry.json", Location{Kind: KindHTTP, URL: "https://raw.githubusercontent.com/acme/hub/main/ctx-registry.json"}},
	} {
		got, err := ParseLocation(tc.in)
		if err != nil {
			t.Errorf("ParseLocation(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseLocation(%q)\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
		// String reads back to the same location.
		again, err := ParseLocation(got.String())
		if err != nil || again != got {
			t.Errorf("ParseLocation(%q.String() = %q) = %+v, %v", tc.in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"", filepath.Join(dir, "missing.json"), "https://h/r.git#../x.json"} {
		if _, err := ParseLocation(bad); err == nil {
			t.Errorf("ParseLocation(%q) succeeded, want an error", bad)
		}
	}
	// Credentials in a location would be saved in the manifest and printed
	// (red17 finding 10): refused, and the error does not quote them.
	for _, bad := range []string{
		"https://alice:s3cretPW@hub.example/reg.json",
		"https://ghp_T0KEN123@github.com/acme/hub",
		"https://user@git.example/acme/hub.git",
		"git+https://bob:s3cretPW@git.example/acme/hub#reg.json",
		"ssh://git:s3cretPW@host/acme/hub.git",
	} {
		_, err := ParseLocation(bad)
		if err == nil || !strings.Contains(err.Error(), "carries credentials") {
			t.Errorf("ParseLocation(%q) = %v, want a credentials error", bad, err)
			continue
		}
		for _, secret := range []string{"s3cretPW", "T0KEN123", "user@"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("ParseLocation(%q): the error quotes %q: %v", bad, secret, err)
			}
		}
	}
	// An ssh user name is not a secret.
	if _, err := ParseLocation("ssh://git@host/acme/hub.git"); err != nil {
		t.Errorf("ssh://git@…: %v", err)
	}
}

func TestKeyNormalizes(t *testing.T) {
	t.Parallel()
	a, _ := ParseLocation("https://Git.Example/acme/hub.git")
	b, _ := ParseLocation("https://git.example/acme/hub/")
	b.Kind = KindGit
	b.File = DefaultFileName
	if a.Key() != b.Key() {
		t.Errorf("keys differ: %q %q", a.Key(), b.Key())
	}
	if ContextKey("https://h/a.git", "docs/") != ContextKey("https://H/a", "./docs") {
		t.Error("ContextKey does not normalize")
	}
	if ContextKey("git@h:o/a.git", "") != ContextKey("ssh://git@h/o/a", ".") {
		t.Error("ContextKey does not treat scp-like and ssh:// alike")
	}
}

func TestResolveRepo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		loc  Location
		repo string
		want string
	}{
		{Location{Kind: KindFile, URL: "/hub/reg.json"}, "../docs", "/docs"},
		{Location{Kind: KindGit, URL: "/srv/hub", File: "teams/web.json"}, "./x", "/srv/hub/teams/x"},
		{Location{Kind: KindHTTP, URL: "https://h/hub/reg.json"}, "../docs.git", "https://h/docs.git"},
		{Location{Kind: KindGit, URL: "https://h/org/hub.git", File: DefaultFileName}, "../docs.git", "https://h/org/docs.git"},
		{Location{Kind: KindGit, URL: "git@h:org/hub.git", File: DefaultFileName}, "../docs.git", "git@h:org/docs.git"},
		{Location{Kind: KindGit, URL: "https://h/org/hub.git"}, "https://other/x.git", "https://other/x.git"},
	} {
		if got := tc.loc.resolveRepo(tc.repo); got != tc.want {
			t.Errorf("%+v.resolveRepo(%q) = %q, want %q", tc.loc, tc.repo, got, tc.want)
		}
	}
}

func TestResolveLocal(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"../hub/reg.json":               "/hub/reg.json",
		"hub#x.json@v1":                 "/proj/hub#x.json@v1",
		"/abs/reg.json":                 "/abs/reg.json",
		"https://h/reg.json":            "https://h/reg.json",
		"git@github.com:o/r.git#x.json": "git@github.com:o/r.git#x.json",
		"git+https://h/r":               "git+https://h/r",
		"~/hub/reg.json":                "/home/u/hub/reg.json",
		"~/hub#x.json@v1":               "/home/u/hub#x.json@v1",
	} {
		if got := ResolveLocal(in, "/proj", "/home/u"); got != want {
			t.Errorf("ResolveLocal(%q) = %q, want %q", in, got, want)
		}
	}
	// No home known: a ~/ path is left for ParseLocation.
	if got := ResolveLocal("~/reg.json", "/proj", ""); got != "~/reg.json" {
		t.Errorf("ResolveLocal(~/reg.json) with no home = %q", got)
	}
}

func FuzzParseLocation(f *testing.F) {
	for _, s := range []string{
		"https://github.com/o/r/blob/main/x.json", "https://h/r.git@v1#a/b.json", "git@h:o/r.git#x.json@dev",
		"ssh://git@h/o/r.git@v2", "git+https://h/r", "https://h/reg.json", "https://github.com/o/r/tree/main/d",
		"/nonexistent/repo#reg.json@v1", "file:///x/y#z.json",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		loc, err := ParseLocation(s)
		if err != nil {
			return
		}
		if loc.Kind == KindGit && (!validSubPath(loc.File) || loc.File == "" || loc.URL == "") {
			t.Fatalf("ParseLocation(%q) = %+v: unsafe or empty file/repo", s, loc)
		}
		if loc.Kind == KindFile {
			return // depends on the file system
		}
		if seg := loc.URL[strings.LastIndexAny(loc.URL, "/:")+1:]; strings.Contains(seg, "@") {
			return // a repository whose name has an @ cannot be written as REPO@REF
		}
		again, err := ParseLocation(loc.String())
		if err != nil || again != loc {
			t.Fatalf("ParseLocation(%q) = %+v; its String %q reads back as %+v, %v", s, loc, loc.String(), again, err)
		}
	})
}
