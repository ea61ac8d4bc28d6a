package wizard

import (
	"context"

	"github.com/ctx-dev/ctx/webfetch"
)

// HTTPAccess checks that an https context can be read, with
// webfetch.Client.Check: one GET whose body is not read, through the same
// address guard (no loopback, private or link-local address unless
// AllowPrivate), redirect rules and time limit as an install. It sends no
// credentials: a registry context names no token.
type HTTPAccess struct {
	Web          *webfetch.Client // nil = a client without a cache
	AllowPrivate bool
}

// CheckAccess implements AccessChecker.
func (h HTTPAccess) CheckAccess(ctx context.Context, url string) error {
	web := h.Web
	if web == nil {
		web = webfetch.New(webfetch.Options{})
		defer web.Close()
	}
	return web.Check(ctx, webfetch.Request{URL: url, AllowPrivate: h.AllowPrivate})
}
