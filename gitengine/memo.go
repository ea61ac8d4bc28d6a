package gitengine

import (
	"context"
	"net/http"
	"sync"
)

// memory is what an Engine learns during its lifetime, shared by every
// Engine that WithLabel derives from it.
type memory struct {
	// refs holds each remote's advertisement, by refsKey.
	refs memo[*Remote]
	// credHosts holds hosts (scheme://host:port, see hostKey) that answered
	// a request without the advertisement with 401 or 403.
	credHosts sync.Map
	// treeRefused holds hosts (see hostKey) that would not send a tree
	// wanted by id (FetchRequest.Tree): later fetches go the commit's way
	// at once instead of paying the refused request again.
	treeRefused sync.Map
	// credFill lets one `git credential fill` run at a time: with no
	// helper that answers, each asks at the terminal, and parallel fetches
	// asked several questions at once on one terminal.
	credFill sync.Mutex
	// tokenUnbound warns once that Options.Token is bound to no host.
	tokenUnbound sync.Once
	// transport is the HTTP transport of every request the Engine makes
	// (httpTransport): its own, so that connections to a host are reused
	// by as many fetches as run at once, not two (http.DefaultTransport
	// keeps two idle connections a host, so 16 parallel fetches from one
	// forge opened a new connection, a TLS handshake over https, for
	// most requests).
	transportOnce sync.Once
	transport     *http.Transport
	// guarded is the transport of a guarded call's requests to origins
	// the Guard does not allow (guardedDirect).
	guardedOnce sync.Once
	guarded     *http.Transport
	// cacheHosts holds guardCache's verdict on each host (*cacheHost),
	// so that a run looks a host up once however many packages it has.
	cacheHosts sync.Map
	// locals holds each local repository the Engine read, by its path
	// (Engine.openLocalRead).
	locals memo[*localRepo]
}

// maxIdlePerHost is how many idle connections to one host an Engine
// keeps for reuse: more than the fetches a command runs at once.
const maxIdlePerHost = 64

// httpTransport returns the Engine's HTTP transport, made on first use.
func (m *memory) httpTransport() *http.Transport {
	m.transportOnce.Do(func() {
		m.transport = http.DefaultTransport.(*http.Transport).Clone()
		m.transport.MaxIdleConnsPerHost = maxIdlePerHost
		m.transport.MaxIdleConns = 4 * maxIdlePerHost
	})
	return m.transport
}

// memo remembers the result of one computation per key, in the manner of
// cmd/go's par.ErrCache: the first caller of a key runs it, concurrent
// callers of that key wait for its result, and later callers get the same
// result, errors included. Only an error that came with the first caller's
// context ending is forgotten, so that the next caller (whose context may
// be alive) tries again.
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]*memoEntry[V]
}

type memoEntry[V any] struct {
	done   chan struct{}
	v      V
	err    error
	forgot bool // err came with the caller's context ending; not remembered
}

// do returns the remembered result for key, running f to get it if need be.
// A caller whose ctx ends while it waits for another's f gets ctx.Err().
func (c *memo[V]) do(ctx context.Context, key string, f func() (V, error)) (V, error) {
	for {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]*memoEntry[V]{}
		}
		e, ok := c.m[key]
		if !ok {
			e = &memoEntry[V]{done: make(chan struct{})}
			c.m[key] = e
			c.mu.Unlock()
			func() {
				defer close(e.done)
				e.v, e.err = f()
				if e.err != nil && ctx.Err() != nil {
					e.forgot = true
					c.mu.Lock()
					delete(c.m, key)
					c.mu.Unlock()
				}
			}()
			return e.v, e.err
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
		if e.forgot && ctx.Err() == nil {
			continue
		}
		return e.v, e.err
	}
}
