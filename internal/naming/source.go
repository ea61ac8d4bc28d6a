package naming

import (
	"net/url"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// The rule is git's (connect.c url_is_local_not_ssh, urls.adoc) as go-git's
// transport.NewEndpoint applies it, since go-git is what fetches: a source
// that ctx calls local must be one go-git opens as a path, and a source ctx
// calls remote one go-git dials.
var (
	schemeRE = lazyre.New(`^[^:]+://`)
	scpRE    = lazyre.New(`^(?:[^@]+@)?[^:\s]+:(?:[0-9]{1,5}:)?[^\\].*$`)
)

// HasScheme reports whether source is written as a URL: "scheme://...".
func HasScheme(source string) bool { return schemeRE().MatchString(source) }

// IsSCPLike reports whether source is git's scp-like ssh syntax,
// [user@]host:path: no "scheme://", a host without white space before the
// first ':', no '/' before that ':', and a path that does not start with a
// backslash. On Windows, a drive letter ("C:...") is a local path instead.
func IsSCPLike(source string) bool {
	if HasScheme(source) || !scpRE().MatchString(source) {
		return false
	}
	if before, _, _ := strings.Cut(source, ":"); strings.Contains(before, "/") {
		return false
	}
	if runtime.GOOS == "windows" && len(source) >= 2 && source[1] == ':' &&
		(source[0]|0x20 >= 'a' && source[0]|0x20 <= 'z') {
		return false
	}
	return true
}

// IsLocalPath reports whether source is a path on this machine: neither
// written as a URL nor scp-like. A relative one is relative to the folder of
// the file that names it (the project root for the manifest).
func IsLocalPath(source string) bool { return !HasScheme(source) && !IsSCPLike(source) }

// IsLocal reports whether source names a repository on this machine: a
// local path (IsLocalPath) or a file:// URL (scheme in any case).
func IsLocal(source string) bool {
	if len(source) >= len("file://") && strings.EqualFold(source[:len("file://")], "file://") {
		return true
	}
	return IsLocalPath(source)
}

// LocalPath returns the path on this machine that a local source names
// (IsLocal), as go-git opens it: a local path as written (relative ones are
// relative to the folder of the file that names it), and for a file:// URL
// the URL's path with its query and fragment, if any (go-git's
// Endpoint.Path; "" when the URL has none). ok is false for a source that
// is not local, or a file:// URL that does not parse (go-git refuses it
// too).
func LocalPath(source string) (path string, ok bool) {
	if IsLocalPath(source) {
		return source, true
	}
	if !IsLocal(source) {
		return "", false
	}
	u, err := url.Parse(source)
	if err != nil {
		return "", false
	}
	path = u.Path
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		path += "#" + u.Fragment
	}
	return path, true
}

// RepoKey is a repository's identity however its address is spelled, the
// one way ctx asks "are these the same repository" (the links graph, a
// registry's imports, the wizard's list): for a remote address — a URL of
// any scheme or git's scp-like [user@]host:path — the host without user,
// port or "www.", then the path without a trailing "/" or ".git" and
// without doubled slashes, all in lower case (hosts such as GitHub's and
// GitLab's take paths in any case); so https://github.com/o/r,
// ssh://git@github.com/O/r.git and git@github.com:o/r are one key. A local
// source (IsLocal) is "local:" and its cleaned slash-separated path, as
// written: a caller that compares local paths from different folders makes
// them absolute first. "" for an empty address.
func RepoKey(addr string) string {
	s := strings.TrimSpace(addr)
	if s == "" {
		return ""
	}
	if p, ok := LocalPath(s); ok {
		return "local:" + path.Clean(filepath.ToSlash(p))
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		s = u.Hostname() + "/" + u.Path
	} else if host, p, ok := strings.Cut(s, ":"); ok && IsSCPLike(s) {
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		if port, rest, ok := strings.Cut(p, ":"); ok && port != "" && strings.Trim(port, "0123456789") == "" {
			p = rest // host:port:path
		}
		s = host + "/" + p
	} else {
		return "local:" + path.Clean(filepath.ToSlash(s))
	}
	s = strings.ToLower(s)
	s = strings.TrimPrefix(s, "www.")
	for strings.Contains(s, "//") {
		s = strings.ReplaceAll(s, "//", "/")
	}
	s = strings.TrimSuffix(strings.TrimRight(s, "/"), ".git")
	return strings.TrimRight(s, "/")
}

// RedactURL is raw as a message may show it: a URL with a scheme loses its
// user info, shown as "***@" (a token is often the user name, which
// url.URL.Redacted keeps); scp-like URLs (git@host:path) keep their user
// name, which is not a secret. Anything else is raw unchanged.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.User == nil {
		return raw
	}
	u.User = nil
	return strings.Replace(u.String(), "://", "://***@", 1)
}

// EndpointKey is RepoKey with the endpoint a push would talk to: the one
// way ctx asks "would these addresses send to the same place" (the push
// guard, own21). The spellings a hosting service serves one repository
// under are one key: ssh (scp-like [user@]host:path, ssh://, git+ssh://)
// on port 22 and https on 443, with or without the port written, as the
// same host serves both (git@github.com:o/r, ssh://git@github.com/o/r
// and https://github.com/o/r.git). Any other scheme or port is a server
// of its own and keeps its scheme and port in the key: http (plain text,
// another listener than https's), git://, https on 8443, ssh on 2222
// (on a shared machine another user may run it). A local address is its
// RepoKey. "" for an empty address.
func EndpointKey(addr string) string {
	key := RepoKey(addr)
	if key == "" || strings.HasPrefix(key, "local:") {
		return key
	}
	s := strings.TrimSpace(addr)
	scheme, port := "ssh", ""
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		scheme, port = strings.ToLower(u.Scheme), u.Port()
		switch scheme {
		case "git+ssh", "ssh+git":
			scheme = "ssh"
		}
	} else if _, p, ok := strings.Cut(s, ":"); ok {
		if pt, _, ok := strings.Cut(p, ":"); ok && pt != "" && strings.Trim(pt, "0123456789") == "" {
			port = pt // scp-like host:port:path, as RepoKey reads it
		}
	}
	if port == "" {
		port = map[string]string{"ssh": "22", "https": "443", "http": "80", "git": "9418"}[scheme]
	}
	port = strings.TrimLeft(port, "0")
	if scheme == "ssh" && port == "22" || scheme == "https" && port == "443" {
		return key
	}
	return key + " (" + scheme + " port " + port + ")"
}
