package gittest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"
)

// Cleaner is what Trickler needs of a test: to stop its server at the end.
type Cleaner interface {
	Cleanup(func())
}

// Trickler starts a server that answers every request with first, then a
// body it sends a byte at a time, fast enough for the rate floor (1,000
// bytes in each 30 s) and the idle timeout, for as long as the client
// reads or until the test ends (then it stops short, so that a build
// without a total bound ends too, with another error). For git over http,
// contentType "application/x-git-upload-pack-advertisement" and first
// "fff0" (a pkt-line header that promises a long line) hold a ref
// advertisement open.
func Trickler(t Cleaner, contentType, first string) *httptest.Server {
	srv, _ := CountingTrickler(t, contentType, first)
	return srv
}

// CountingTrickler is Trickler, with a count of the requests it was sent.
func CountingTrickler(t Cleaner, contentType, first string) (*httptest.Server, func() int64) {
	done := make(chan struct{})
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", "10000000")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(first))
		fl := w.(http.Flusher)
		fl.Flush()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		stop := time.After(20 * time.Second)
		for {
			select {
			case <-r.Context().Done():
				return
			case <-done:
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := w.Write([]byte("a")); err != nil {
					return
				}
				fl.Flush()
			}
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv, n.Load
}
