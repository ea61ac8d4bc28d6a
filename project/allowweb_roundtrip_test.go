package project

import (
	"encoding/json"
	"testing"
)

// What `ctx install --allow-outside` and `ctx add` record
// (WebAllowFor) must be read back by ParseLocal; else ctx writes a
// context.local.json that every later command refuses ("not an origin as
// ctx writes it: … `ctx install --allow-outside ALIAS` writes it"), and
// the file's other allowances and local packages are lost to the user
// until it is edited by hand. An IPv6 link-local source with a zone
// (http://[fe80::1%25eth0]:8080/) is a committed manifest's to name.
func TestAllowWebRoundTrip(t *testing.T) {
	for _, src := range []string{
		"http://[fe80::1%25lo]:18771/x.md",
		"https://[fe80::1%25eth0]/llms.txt",
		"https://docs.example.com/a.md",
		"http://[::1]:8080/a.md",
	} {
		s := PackageSpec{Alias: "z", Kind: KindHTTPS, Source: src, AllowPrivateNetwork: true}
		want, ok := WebAllowFor(s)
		if !ok {
			t.Errorf("WebAllowFor(%s): asks nothing", src)
			continue
		}
		data, err := json.Marshal(LocalFile{Packages: []PackageSpec{}, AllowWeb: []WebAllow{want}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseLocal(Rel(LocalName), data); err != nil {
			t.Errorf("%s: ctx records origin %q, then refuses its own file: %v", src, want.Origin, err)
		}
	}
}

// A committed spec whose URL has a port but no host name
// (http://:18771/x.md: Go dials this machine) asked for a token and the
// private network and was let through, since WebAllowFor found no origin
// and CheckSource took that for "asks nothing": the token went to a
// loopback port and the guard was lifted. The rule fails closed.
func TestWebAllowNoHostFailsClosed(t *testing.T) {
	p := Project{root: t.TempDir()}
	for _, src := range []string{"http://:18771/x.md", "https://:443/x.md"} {
		for _, s := range []PackageSpec{
			{Alias: "x", Kind: KindHTTPS, Source: src, TokenEnv: "GITHUB_TOKEN"},
			{Alias: "x", Kind: KindHTTPS, Source: src, AllowPrivateNetwork: true},
		} {
			if _, err := p.CheckSource(&Manifest{}, s); err == nil {
				t.Errorf("CheckSource(%s, tokenEnv %q, private %t): allowed", src, s.TokenEnv, s.AllowPrivateNetwork)
			}
		}
	}
}
