package naming

import "testing"

// The push guard's "same place" (own21): the spellings users type for
// one repository on a hosting service are one key; another scheme's or
// port's server is not the same place, though RepoKey calls it the same
// repository.
func TestEndpointKey(t *testing.T) {
	same := [][]string{
		{"git@github.com:o/r", "ssh://git@github.com/o/r", "https://github.com/o/r.git", "ssh://git@GitHub.com:22/o/r/", "https://github.com:443/o/r", "git+ssh://git@github.com/o/r"},
		{"http://git.corp/team/docs", "http://git.corp:80/team/docs.git"},
		{"ssh://git@git.corp:2222/team/docs", "git@git.corp:2222:team/docs"},
		{"/srv/git/hub.git", "file:///srv/git/hub.git"},
	}
	for _, group := range same {
		for _, a := range group[1:] {
			if EndpointKey(a) != EndpointKey(group[0]) {
				t.Errorf("EndpointKey(%q) = %q, EndpointKey(%q) = %q: one place", a, EndpointKey(a), group[0], EndpointKey(group[0]))
			}
		}
	}
	apart := [][2]string{
		{"https://host/x", "ssh://host:2222/x"},
		{"https://host/x", "http://host/x"},
		{"https://host/x", "https://host:8443/x"},
		{"git@host:x", "git://host/x"},
		{"ssh://host:2222/x", "ssh://host:2223/x"},
		{"https://host/x", "https://host/y"},
	}
	for _, p := range apart {
		if EndpointKey(p[0]) == EndpointKey(p[1]) {
			t.Errorf("EndpointKey(%q) = EndpointKey(%q) = %q: two places", p[0], p[1], EndpointKey(p[0]))
		}
		if RepoKey(p[0]) != RepoKey(p[1]) && p[1] != "https://host/y" {
			t.Errorf("RepoKey(%q) != RepoKey(%q): the test means a pair RepoKey takes as one", p[0], p[1])
		}
	}
	if EndpointKey("  ") != "" {
		t.Error("an empty address has a key")
	}
}
