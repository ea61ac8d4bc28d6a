package webfetch

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
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

// review20-red20b: which pages an index keeps is a function of their
// sizes, not of timing, so that a teammate's fetch of the same pages
// makes the same snapshot (httpsrc refuses another rev). A page was
// skipped once the pages fetched so far held the bound exactly, though
// the index's order would keep it (an empty page after them): here p4
// starts after p0 (which fills the bound to the byte) is done and while
// p1..p3 are held, so whether it was kept depended on the order the
// pages finished in.
func TestReview20bLLMSTotalExactNotTiming(t *testing.T) {
	t.Parallel()
	const index = "- [P0](/p0.md)\n- [P1](/p1.md)\n- [P2](/p2.md)\n- [P3](/p3.md)\n- [P4](/p4.md)\n"
	const total = 64 << 10
	p0 := strings.Repeat("z", total-len(index)-1) + "\n"
	p4seen := make(chan struct{})
	var once sync.Once
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/llms.txt":
			io.WriteString(w, index)
		case "/p0.md":
			io.WriteString(w, p0)
		case "/p4.md":
			once.Do(func() { close(p4seen) })
		default: // p1..p3: empty, held until p4 is asked for
			select {
			case <-p4seen:
			case <-time.After(3 * time.Second): // p4 was skipped: let the fetch end
			case <-r.Context().Done():
			}
		}
	})
	var warnings []string
	var mu sync.Mutex
	c := newClient(t, Options{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }})
	snap, err := c.Fetch(t.Context(), Request{URL: s.URL + "/llms.txt", AllowPrivate: true,
		Limits: Limits{MaxBytes: total, MaxArchiveBytes: total}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(snap.Items) != 6 {
		t.Errorf("%d items, want the index and its 5 pages (they hold %d bytes, the bound): warnings %q", len(snap.Items), total, warnings)
	}
}
