package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestConfinedRegistryThroughProxy (review18c): behind the environment's
// HTTP proxy (HTTP_PROXY/HTTPS_PROXY: a company network where only the
// proxy reaches the internet), the registry the committed manifest names
// on a public host is read through the proxy, as the same registry named
// by the user is, and as gitengine's guarded calls do (the host resolved
// and checked, then the proxy). Loader.Confine dropped the proxy, so a
// teammate's clone cannot read a public registry it could read before.
// The host is a public address literal (no DNS; the guard's check,
// resolve then proxy, passes it), which only the proxy here answers; the
// direct dial of the current code goes nowhere (bounded at 3 s). The
// environment's proxy is read once per process (http.ProxyFromEnvironment),
// so the loads run in a child.
func TestConfinedRegistryThroughProxy(t *testing.T) {
	const loc = "http://192.0.2.1/ctx-registry.json" // TEST-NET-1: public to netguard, routed nowhere
	if os.Getenv("REVIEW18C_CHILD") == "1" {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		var rec recorder
		if _, err := rec.loader().Load(ctx, loc); err != nil {
			t.Fatalf("the user's registry through the proxy: %v", err)
		}
		l := rec.loader()
		l.Confine = t.TempDir()
		if _, err := l.Load(ctx, loc); err != nil {
			t.Fatalf("the manifest's registry, on a public host, through the user's proxy: %v, want read as the user's is", err)
		}
		return
	}
	t.Parallel()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.String() != loc {
			http.Error(w, "not proxied here: "+r.URL.String(), http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, reg("hub", nil, "x=https://example.com/x.git"))
	}))
	t.Cleanup(proxy.Close)
	cmd := exec.Command(os.Args[0], "-test.run=^TestConfinedRegistryThroughProxy$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REVIEW18C_CHILD=1", "HTTP_PROXY="+proxy.URL, "http_proxy="+proxy.URL, "NO_PROXY=", "no_proxy=", "REQUEST_METHOD=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
