package gitengine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"golang.org/x/crypto/ssh/knownhosts"
)

// secretsOf returns the credential strings embedded in raw, to scrub from
// error messages that might quote them.
func secretsOf(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
	}
	if n := u.User.Username(); n != "" && len(n) >= 8 { // long user names are usually tokens
		out = append(out, n, url.QueryEscape(n))
	}
	return out
}

// scrubbed is an error whose message has secrets removed; Unwrap keeps the
// chain for errors.Is/As.
type scrubbed struct {
	msg string
	err error
}

func (s *scrubbed) Error() string { return s.msg }
func (s *scrubbed) Unwrap() error { return s.err }

func scrub(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "***")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

// newError builds an *Error with the URL redacted and a hint for kind.
func newError(kind Kind, rawURL, op string, err error, hint string) *Error {
	if hint == "" {
		hint = defaultHint(kind)
	}
	return &Error{Kind: kind, URL: naming.RedactURL(rawURL), Op: op, Hint: hint, Err: scrub(err, secretsOf(rawURL))}
}

func defaultHint(k Kind) string {
	switch k {
	case KindNotFound:
		return "check the URL; if the repository is private, check that your credentials can see it"
	case KindAuthRequired:
		return "set CTX_GIT_TOKEN (with CTX_GIT_TOKEN_HOSTS naming the host), configure a git credential helper, or put credentials in the URL"
	case KindAuthFailed:
		return "the credentials were refused: check CTX_GIT_TOKEN, your git credential helper, or the credentials in the URL"
	case KindHostKey:
		return "verify the host's key and add it to ~/.ssh/known_hosts (ssh-keyscan HOST >> ~/.ssh/known_hosts)"
	case KindNetwork:
		return "check your network connection, proxy and the host name, then retry"
	case KindPrivate:
		return "a repository someone else named reaches your private network only where you allowed its origin (\"allowWeb\" in .context/context.local.json)"
	case KindRefused:
		return "the server refused the request; ask its administrator to enable uploadpack.allowReachableSHA1InWant, or pin a commit that is a branch or tag tip"
	case KindRefNotFound:
		return "run `git ls-remote URL` to see the refs the repository has"
	case KindPathNotFound:
		return "check the path; it is relative to the repository root"
	}
	return ""
}

// commitGone is the error for a commit, asked for by id, that the
// repository at rawURL does not have (or would not send): the one wording
// of a lock's commit lost to a force-push. The caller knows what moves on
// (workspace: `ctx update ALIAS`); hint adds what gitengine knows more.
func commitGone(rawURL string, commit plumbing.Hash, cause error, hint string) *Error {
	err := fmt.Errorf("%s: its history was rewritten since it was locked (a force-push?), or the commit deleted", commit)
	if cause != nil {
		err = fmt.Errorf("%w (%w)", err, cause)
	}
	return newError(KindCommitNotFound, rawURL, "fetch", err, hint)
}

// classify turns a transport or protocol error into an *Error.
func classify(rawURL, op string, err error, sentCreds bool) *Error {
	var ge *Error
	if errors.As(err, &ge) {
		return ge
	}
	kind := KindOther
	msg := strings.ToLower(err.Error())
	var netErr net.Error
	var keyErr *knownhosts.KeyError
	var revoked *knownhosts.RevokedError
	var stall *StalledError
	var slow *netrate.SlowError
	var total *netrate.TotalError
	var private *PrivateError
	switch {
	case errors.As(err, &private):
		return newError(KindPrivate, rawURL, op, private, "")
	case errors.As(err, &stall):
		return newError(KindNetwork, rawURL, op, stall, "retry later; if the server is only slow, raise the idle timeout (CTX_NET_TIMEOUT, e.g. 2m)")
	case errors.As(err, &total):
		return newError(KindNetwork, rawURL, op, total, total.Hint())
	case errors.As(err, &slow):
		return newError(KindNetwork, rawURL, op, slow, fmt.Sprintf("retry later; to allow a slower link, raise CTX_NET_TIMEOUT (e.g. 2m): a transfer must move %d bytes in each CTX_NET_TIMEOUT", slow.Floor.Bytes))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		kind = KindOther
	case errors.Is(err, transport.ErrAuthenticationRequired):
		kind = KindAuthRequired
		if sentCreds {
			kind = KindAuthFailed
		}
	case errors.Is(err, transport.ErrAuthorizationFailed):
		kind = KindAuthFailed
		if !sentCreds {
			kind = KindAuthRequired
		}
	case errors.Is(err, transport.ErrRepositoryNotFound):
		kind = KindNotFound
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return newError(KindRefNotFound, rawURL, op, err, "the repository is empty: push a commit to it first")
	case errors.As(err, &keyErr), errors.As(err, &revoked),
		strings.Contains(msg, "knownhosts"), strings.Contains(msg, "known_hosts"),
		strings.Contains(msg, "host key"):
		kind = KindHostKey
	case strings.Contains(msg, "unable to authenticate"), strings.Contains(msg, "no supported methods remain"):
		kind = KindAuthFailed
		if !sentCreds {
			kind = KindAuthRequired
		}
	case strings.Contains(msg, "not our ref"), strings.Contains(msg, "want not valid"),
		strings.Contains(msg, "not valid"), strings.Contains(msg, "upload-pack: not"):
		kind = KindRefused
	case strings.Contains(msg, "repository not found"), strings.Contains(msg, "does not appear to be a git repository"),
		strings.Contains(msg, "no such repository"), strings.Contains(msg, "not exported"):
		kind = KindNotFound
	case errors.Is(err, errCutShort), errors.As(err, &netErr), strings.Contains(msg, "connection refused"),
		strings.Contains(msg, "no such host"), strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"),
		strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "connection reset"):
		kind = KindNetwork
	}
	return newError(kind, rawURL, op, err, "")
}
