package wizard

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// maxCheckRedirects bounds the redirects one https access check follows.
const maxCheckRedirects = 5

// HTTPAccess checks that an https context can be read: one GET whose body
// is not read (closing it ends the transfer), at most 5 redirects and none
// from https to another scheme. The time is bounded by the context Run
// gives it (Options.CheckTimeout). It sends no credentials. The install
// itself goes through the workspace's https source, with its own limits
// and address checks.
type HTTPAccess struct {
	Client *http.Client // nil = a client with the redirect rule above
}

// CheckAccess implements AccessChecker.
func (h HTTPAccess) CheckAccess(ctx context.Context, url string) error {
	client := h.Client
	if client == nil {
		client = &http.Client{CheckRedirect: checkRedirect}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", safetext.Clip(url, 0), err)
	}
	req.Header.Set("User-Agent", "ctx")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("cannot fetch: %w", err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%s: the server wants credentials", safetext.Clip(resp.Status, 0))
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%s: check the context's url with the registry's owner", safetext.Clip(resp.Status, 0))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fmt.Errorf("the server answered %s", safetext.Clip(resp.Status, 0))
	}
	return nil
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxCheckRedirects {
		return fmt.Errorf("more than %d redirects", maxCheckRedirects)
	}
	if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return errors.New("redirected from https to " + safetext.Clip(req.URL.Scheme, 0))
	}
	return nil
}
