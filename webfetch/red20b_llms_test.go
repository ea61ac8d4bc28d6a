package webfetch

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// red20b finding 4: an llms.txt's pages are bounded one by one (maxBytes,
// 10 MB) and in number (maxPages, 200), but not together: with the
// defaults one index brings 2 GB into the shared cache (an archive, 100
// MB), and with the ceilings 5,000 × 256 MiB. The pages together must
// stay within the source's whole-download bound, maxArchiveBytes, as an
// archive's body does; what is past it is left out with a warning.
func TestRed20bLLMSTotalBounded(t *testing.T) {
	t.Parallel()
	const pages, pageSize = 40, 60 << 10
	page := strings.Repeat("x", pageSize-1) + "\n"
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/llms.txt" {
			var b strings.Builder
			b.WriteString("# Docs\n\n")
			for i := range pages {
				fmt.Fprintf(&b, "- [P%d](/p%d.md)\n", i, i)
			}
			io.WriteString(w, b.String())
			return
		}
		io.WriteString(w, page)
	})
	var warnings []string
	var mu sync.Mutex
	c := newClient(t, Options{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }})
	const total = 512 << 10
	snap, err := c.Fetch(t.Context(), Request{URL: s.URL + "/llms.txt", AllowPrivate: true,
		Limits: Limits{MaxBytes: 64 << 10, MaxArchiveBytes: total, MaxPages: 100}})
	if err != nil {
		t.Fatal(err)
	}
	var kept int64
	for _, it := range snap.Items {
		kept += it.Size
	}
	if kept > total {
		t.Errorf("the index's pages hold %d bytes together (%d pages), over the source's %d", kept, len(snap.Items)-1, total)
	}
	if len(snap.Items) < 2 {
		t.Errorf("no page kept: %d items", len(snap.Items))
	}
	mu.Lock()
	defer mu.Unlock()
	if kept > total || !strings.Contains(strings.Join(warnings, "\n"), "maxArchiveBytes") {
		t.Errorf("no warning names the bound: %q", warnings)
	}
}

// An index whose first page alone passes the total bound fails, naming
// the bound, as an archive over it does.
func TestRed20bLLMSFirstPageOverTotal(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/llms.txt" {
			io.WriteString(w, "- [A](/a.md)\n- [B](/b.md)\n")
			return
		}
		io.WriteString(w, strings.Repeat("y", 40<<10))
	})
	c := newClient(t, Options{})
	fetchErr(t, c, Request{URL: s.URL + "/llms.txt", AllowPrivate: true,
		Limits: Limits{MaxBytes: 64 << 10, MaxArchiveBytes: 32 << 10}}, KindLimit, "maxArchiveBytes", "32768")
}
