package project

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// context.local.json's "allowWeb" is checked as strictly as "allow": each
// origin as ctx writes it, each entry allowing something, each origin and
// variable once, errors naming allowWeb[i] and the field; a file with only
// "allow" (before allowWeb existed) is read as before.
func TestParseLocalAllowWeb(t *testing.T) {
	for data, want := range map[string]string{
		`{"allowWeb": [{"origin": "https://Docs.example.com:443", "tokenEnv": "T"}]}`:                                                                        `allowWeb[0].origin: "https://Docs.example.com:443" is not an origin as ctx writes it: scheme://host:port, in lower case, with the port (write it "https://docs.example.com:443")`,
		`{"allowWeb": [{"origin": "https://docs.example.com", "tokenEnv": "T"}]}`:                                                                            `(write it "https://docs.example.com:443")`,
		`{"allowWeb": [{"origin": "https://docs.example.com:443/x", "tokenEnv": "T"}]}`:                                                                      "allowWeb[0].origin",
		`{"allowWeb": [{"origin": "ftp://docs.example.com:21", "tokenEnv": "T"}]}`:                                                                           "allowWeb[0].origin",
		`{"allowWeb": [{"origin": "https://docs.example.com:443"}]}`:                                                                                         "allowWeb[0]: allows nothing",
		`{"allowWeb": [{"origin": "https://docs.example.com:443", "tokenEnv": "1T"}]}`:                                                                       "allowWeb[0].tokenEnv",
		`{"allowWeb": [{"origin": "https://a.example:443", "tokenEnv": "T"}, {"origin": "https://a.example:443", "tokenEnv": "T", "privateNetwork": true}]}`: "allowWeb[1]: origin \"https://a.example:443\" and tokenEnv \"T\" are already allowWeb[0]",
		`{"allowWeb": [{"origin": "https://a.example:443", "tokenEnv": "T", "host": "x"}]}`:                                                                  "host",
		`{"allowWeb": {"origin": "https://a.example:443"}}`:                                                                                                  LocalName + ":1:",
	} {
		if _, err := ParseLocal(Rel(LocalName), []byte(data)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLocal(%s) = %v, want an error saying %q", data, err, want)
		}
	}
	f, err := ParseLocal(Rel(LocalName), []byte(`{"allow": ["/a"], "allowWeb": [{"origin": "http://[::1]:8080", "privateNetwork": true}, {"origin": "https://a.example:443", "tokenEnv": "T"}]}`))
	want := []WebAllow{{Origin: "http://[::1]:8080", PrivateNetwork: true}, {Origin: "https://a.example:443", TokenEnv: "T"}}
	if err != nil || !reflect.DeepEqual(f.AllowWeb, want) || !reflect.DeepEqual(f.Allow, []string{"/a"}) {
		t.Errorf("ParseLocal = %+v, %v", f, err)
	}
	if f, err := ParseLocal(Rel(LocalName), []byte(`{"packages": [], "allow": ["/a"]}`)); err != nil || f.AllowWeb != nil {
		t.Errorf("an old local file: %+v, %v", f, err)
	}
}

// A committed https spec's tokenEnv and allowPrivateNetwork are the
// user's to allow, bound to the variable and to the origin its URL names:
// the same alias with another host, port, scheme or variable is refused;
// the user's own spec (Local) needs no allowance; a spec that asks for
// neither needs none.
func TestCheckSourceWeb(t *testing.T) {
	p := Project{root: t.TempDir()}
	m := &Manifest{AllowWeb: []WebAllow{
		{Origin: "https://docs.example.com:443", TokenEnv: "WIKI_TOKEN"},
		{Origin: "http://127.0.0.1:8080", PrivateNetwork: true},
	}}
	spec := func(src, tok string, private bool) PackageSpec {
		return PackageSpec{Alias: "wiki", Kind: KindHTTPS, Source: src, TokenEnv: tok, AllowPrivateNetwork: private}
	}
	for _, c := range []struct {
		s  PackageSpec
		ok bool
	}{
		{spec("https://docs.example.com/a.md", "", false), true},
		{spec("https://docs.example.com/a.md", "WIKI_TOKEN", false), true},
		{spec("https://DOCS.example.com:443/b/llms.txt", "WIKI_TOKEN", false), true},
		{spec("https://docs.example.com/a.md", "GITHUB_TOKEN", false), false},
		{spec("https://evil.example/a.md", "WIKI_TOKEN", false), false},
		{spec("https://docs.example.com:8443/a.md", "WIKI_TOKEN", false), false},
		{spec("http://docs.example.com/a.md", "WIKI_TOKEN", false), false},
		{spec("https://docs.example.com/a.md", "WIKI_TOKEN", true), false},
		{spec("http://127.0.0.1:8080/a.md", "", true), true},
		{spec("http://127.0.0.1:8081/a.md", "", true), false},
		{spec("http://169.254.169.254/latest/meta-data/", "", true), false},
		{spec("http://127.0.0.1:8080/a.md", "WIKI_TOKEN", true), false},
	} {
		_, err := p.CheckSource(m, c.s)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNotAllowed)) {
			t.Errorf("CheckSource(%s tokenEnv %q private %t) = %v, want ok %t", c.s.Source, c.s.TokenEnv, c.s.AllowPrivateNetwork, err, c.ok)
		}
		if _, err := p.CheckSource(nil, c.s); (err == nil) != (c.s.TokenEnv == "" && !c.s.AllowPrivateNetwork) {
			t.Errorf("CheckSource(nil, %s) = %v", c.s.Source, err)
		}
		local := c.s
		local.Local = true
		if _, err := p.CheckSource(nil, local); err != nil {
			t.Errorf("the user's own spec %s: %v", c.s.Source, err)
		}
	}
	_, err := p.CheckSource(nil, spec("https://evil.example/a.md", "GITHUB_TOKEN", true))
	for _, want := range []string{"GITHUB_TOKEN", `"https://evil.example:443"`, "private network", "ctx install --allow-outside wiki", LocalName} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %v does not say %q", err, want)
		}
	}
}

// AddAllowWeb merges into the entry for the same origin and variable, and
// the allowances are written to context.local.json only.
func TestAllowWebWritten(t *testing.T) {
	m := &Manifest{Packages: []PackageSpec{{Alias: "wiki", Kind: KindHTTPS, Source: "https://w.example/a.md", TokenEnv: "T"}}}
	m.AddAllowWeb(WebAllow{Origin: "https://w.example:443", TokenEnv: "T"})
	m.AddAllowWeb(WebAllow{Origin: "https://w.example:443", TokenEnv: "T", PrivateNetwork: true})
	m.AddAllowWeb(WebAllow{Origin: "https://w.example:443", TokenEnv: "U"})
	want := []WebAllow{{Origin: "https://w.example:443", TokenEnv: "T", PrivateNetwork: true}, {Origin: "https://w.example:443", TokenEnv: "U"}}
	if !reflect.DeepEqual(m.AllowWeb, want) || !m.HasLocal() {
		t.Fatalf("AllowWeb = %+v", m.AllowWeb)
	}
	committed, _ := MarshalManifest(m)
	own, _ := MarshalLocal(m)
	if strings.Contains(string(committed), "allowWeb") || !strings.Contains(string(own), `"allowWeb"`) {
		t.Errorf("committed:\n%s\nlocal:\n%s", committed, own)
	}
	f, err := ParseLocal(Rel(LocalName), own)
	if err != nil || !reflect.DeepEqual(f.AllowWeb, want) {
		t.Errorf("read back: %+v, %v", f, err)
	}
}
