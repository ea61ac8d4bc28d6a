package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRed17RemoteRegistryNamesLocalRepo (red17 finding 5): a registry read
// over the network names a repository on the user's own disk ("/abs/path"
// or file://). ctx setup then installs it, allowing it outside the project
// in context.local.json as if the user had typed it, and the index and MCP
// server serve the user's private repository. A registry may not offer a
// "dir" context; a local git repository from a remote registry must be
// refused the same way (a local registry file, the user's own, may).
func TestRed17RemoteRegistryNamesLocalRepo(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, reg("hub", nil, "handbook=/home/victim/private-notes", "wiki=file:///srv/private/wiki.git"))
	}))
	defer srv.Close()
	var rec recorder
	res, err := rec.loader().Load(context.Background(), srv.URL+"/reg.json")
	if err != nil {
		return // refused: fine
	}
	for _, c := range res.Contexts {
		t.Errorf("a registry from %s offers %s = %s, a repository on this machine", srv.URL, c.Name, c.Source())
	}
}
