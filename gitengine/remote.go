package gitengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// remote is a parsed repository location.
type remote struct {
	raw   string              // as given (may hold credentials; never print)
	ep    *transport.Endpoint // credentials removed
	user  string              // from the URL
	pass  string              // from the URL
	local string              // absolute path for local repositories (file:// or a path)
}

func parseRemote(raw string) (*remote, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, newError(KindOther, raw, "parse URL", errors.New("empty repository URL"), "give a git URL or a local repository path")
	}
	ep, err := transport.NewEndpoint(raw)
	if err != nil {
		return nil, newError(KindOther, raw, "parse URL", err, "give a git URL (https://, ssh://, git@host:path, file://) or a local repository path")
	}
	r := &remote{raw: raw, ep: ep, user: ep.User, pass: ep.Password}
	ep.User, ep.Password = "", ""
	switch ep.Protocol {
	case "file":
		p, err := filepath.Abs(filepath.FromSlash(ep.Path))
		if err != nil {
			return nil, newError(KindOther, raw, "parse URL", err, "")
		}
		r.local = p
	case "http", "https", "ssh", "git":
	default:
		return nil, newError(KindOther, raw, "parse URL", fmt.Errorf("unsupported protocol %s", safetext.Quote(ep.Protocol)), "use https://, ssh://, git://, file:// or a local path")
	}
	if ep.Protocol == "ssh" && r.user == "" {
		// ~/.ssh/config User is not read by go-git; git is what hosts expect.
		r.user = "git"
	}
	return r, nil
}

func (r *remote) isHTTP() bool { return r.ep.Protocol == "http" || r.ep.Protocol == "https" }

// conn is an upload-pack conversation with a remote: its advertisement and
// what is needed to send requests.
type conn struct {
	e            *Engine
	r            *remote
	tr           transport.Transport
	auth         transport.AuthMethod
	sess         transport.UploadPackSession
	receive      bool                         // a receive-pack conversation (push): rsess, not sess
	rsess        transport.ReceivePackSession // when receive
	adv          *packp.AdvRefs
	used         bool         // for stateful protocols, a session serves one request
	assumed      bool         // adv was not read but assumed (see assume)
	received     atomic.Int64 // bytes received from the network
	sentCreds    bool
	guardRefused atomic.Pointer[PrivateError] // the Guard's refusal, if a request met one
}

// countingTransport counts response body bytes of every HTTP request.
type countingTransport struct {
	base http.RoundTripper
	n    *atomic.Int64
}

// It also keeps the request's watchdog (see watch) armed while a body read
// waits on the server.
func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, stalled(req.Context(), err)
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: t.n, ctx: req.Context(), w: watchdogOf(req.Context())}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	n   *atomic.Int64
	ctx context.Context
	w   *watchdog
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.w.arm()
	n, err := b.ReadCloser.Read(p)
	b.w.moved(n)
	b.w.disarm()
	b.n.Add(int64(n))
	if err != nil && err != io.EOF {
		err = stalled(b.ctx, err)
	}
	return n, err
}

// connect opens an upload-pack session and reads the advertisement, trying
// credentials in order: the URL's, Options.Token (https), then `git
// credential fill` when the server answered 401 and git is installed.
func (e *Engine) connect(ctx context.Context, r *remote, op string) (*conn, error) {
	return e.connectConn(ctx, &conn{e: e, r: r}, op)
}

// connectReceive is connect for a receive-pack session (push), with the
// same credentials in the same order.
func (e *Engine) connectReceive(ctx context.Context, r *remote, op string) (*conn, error) {
	return e.connectConn(ctx, &conn{e: e, r: r, receive: true}, op)
}

func (e *Engine) connectConn(ctx context.Context, c *conn, op string) (*conn, error) {
	r := c.r
	if !r.isHTTP() {
		guarded := !e.allows(remoteOrigin(r))
		if guarded && r.ep.Protocol == "git" {
			pinned, err := pinGit(ctx, r)
			if err != nil {
				return nil, e.refusal(r, op, err)
			}
			c.r = pinned
		}
		tr, err := client.NewClient(c.r.ep)
		if err != nil {
			return nil, newError(KindOther, r.raw, op, err, "")
		}
		c.tr = tr
		if r.ep.Protocol == "ssh" {
			auth, err := e.sshAuth(r.user, r.ep.Host)
			if kh := (*knownHostsError)(nil); errors.As(err, &kh) {
				kh.port = r.ep.Port
				return nil, newError(KindHostKey, r.raw, op, kh, kh.hint())
			}
			if err != nil {
				return nil, classify(r.raw, op, err, false)
			}
			if guarded {
				via, err := e.sshProxy(ctx, r)
				if err != nil {
					return nil, e.refusal(r, op, err)
				}
				guardAuth(auth, r.ep.Host, via, &c.guardRefused)
			}
			c.auth = auth
			c.sentCreds = true
		}
		if err := c.open(ctx); err != nil {
			if perr := c.private(op, err); perr != nil {
				return nil, perr
			}
			return nil, classify(r.raw, op, err, c.sentCreds)
		}
		return c, nil
	}

	tokenTried := c.initHTTP()
	err := c.open(ctx)
	if err == nil {
		return c, nil
	}
	if perr := c.private(op, err); perr != nil {
		return nil, perr
	}
	authErr := errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed)
	urlCreds := r.user != "" || r.pass != ""
	if !authErr || urlCreds {
		return nil, classify(r.raw, op, err, c.sentCreds)
	}
	// The server wants credentials: ask git's credential helpers.
	cred, ok := e.credentialFill(ctx, r)
	if !ok {
		ge := classify(r.raw, op, err, c.sentCreds)
		switch {
		case tokenTried:
			ge.Hint = "the server refused CTX_GIT_TOKEN: check the token and its scopes, or configure a git credential helper"
		case e.opts.Token != "" && !tokenScheme(r):
			ge.Hint = "CTX_GIT_TOKEN is sent over https only (or plain http to this machine), and this remote is plain http: use its https URL, or configure a git credential helper"
		case e.opts.Token != "" && len(e.opts.TokenHosts) == 0:
			ge.Hint = fmt.Sprintf("CTX_GIT_TOKEN is sent to no host until CTX_GIT_TOKEN_HOSTS names it: set CTX_GIT_TOKEN_HOSTS=%s if the token is for this host, or configure a git credential helper", r.ep.Host)
		case e.opts.Token != "":
			ge.Hint = fmt.Sprintf("CTX_GIT_TOKEN is not sent to %s (not in CTX_GIT_TOKEN_HOSTS): add the host there if the token is for it, or configure a git credential helper", safetext.Quote(r.ep.Host))
		}
		return nil, ge
	}
	c.auth = &githttp.BasicAuth{Username: cred.user, Password: cred.pass}
	c.sentCreds = true
	if err := c.open(ctx); err != nil {
		if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
			e.credentialRun(ctx, "reject", cred.input())
			ge := classify(r.raw, op, err, true)
			ge.Hint = "the server refused the credentials from your git credential helper (they were rejected and will be asked for again): update them"
			return nil, ge
		}
		return nil, classify(r.raw, op, err, true)
	}
	e.credentialRun(ctx, "approve", cred.input())
	return c, nil
}

// initHTTP sets up c's HTTP client and the first credentials to try: the
// URL's, else Options.Token when c's host is one of Options.TokenHosts
// (over https, or to a loopback test server). It reports whether the
// token is what c sends.
func (c *conn) initHTTP() (tokenTried bool) {
	var base http.RoundTripper = c.e.mem.httpTransport()
	if c.e.guard != nil {
		base = guardedTransport{e: c.e, open: c.e.mem.httpTransport(), direct: c.e.mem.guardedDirect(), refused: &c.guardRefused}
	}
	c.tr = githttp.NewClient(&http.Client{Transport: countingTransport{base: base, n: &c.received}})
	switch {
	case c.r.user != "" || c.r.pass != "":
		c.auth = &githttp.BasicAuth{Username: c.r.user, Password: c.r.pass}
	case c.e.tokenFor(c.r):
		c.auth = &githttp.BasicAuth{Username: "x-access-token", Password: c.e.opts.Token}
		tokenTried = true
	}
	c.sentCreds = c.auth != nil
	return tokenTried
}

// tokenFor reports whether Options.Token goes to r: an https remote (or
// plain http to a loopback test server) whose host is one of
// Options.TokenHosts. A token bound to no host warns once.
func (e *Engine) tokenFor(r *remote) bool {
	if e.opts.Token == "" || !tokenScheme(r) {
		return false
	}
	if len(e.opts.TokenHosts) == 0 {
		e.mem.tokenUnbound.Do(func() {
			e.warn("CTX_GIT_TOKEN is set but bound to no host, so it is sent to none: set CTX_GIT_TOKEN_HOSTS to the hosts it is for (say CTX_GIT_TOKEN_HOSTS=github.com, or host:port)")
		})
		return false
	}
	port := r.ep.Port
	if port == 0 {
		port = 443
		if r.ep.Protocol == "http" {
			port = 80
		}
	}
	return tokenHostMatch(e.opts.TokenHosts, r.ep.Host, port)
}

// tokenScheme reports whether r's scheme may carry Options.Token: https,
// or plain http to a loopback test server.
func tokenScheme(r *remote) bool {
	return r.ep.Protocol == "https" || isLoopback(r.ep.Host)
}

// tokenHostMatch reports whether host (an Endpoint's, maybe bracketed)
// and port match one of hosts: "host" any
// port, "host:port" that port; without case.
func tokenHostMatch(hosts []string, host string, port int) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		name, p, err := net.SplitHostPort(h)
		if err != nil { // no port
			if strings.Trim(h, "[]") == host {
				return true
			}
			continue
		}
		if name == host && p == strconv.Itoa(port) {
			return true
		}
	}
	return false
}

// CheckTokenHost reports what is wrong with h as an entry of
// Options.TokenHosts: it must be a host name or address, with an optional
// :port, and nothing else (no scheme, user, path or wildcard).
func CheckTokenHost(h string) error {
	h = strings.TrimSpace(h)
	if strings.Contains(h, "://") {
		return fmt.Errorf("%s is not a host: write the host name alone (github.com, git.corp.example:8443), no scheme", safetext.Quote(h))
	}
	name := h
	if n, p, err := net.SplitHostPort(h); err == nil {
		if v, err := strconv.Atoi(p); err != nil || v < 1 || v > 65535 {
			return fmt.Errorf("%s: the port must be a number from 1 to 65535", safetext.Quote(h))
		}
		name = n
	}
	name = strings.Trim(name, "[]")
	if name == "" || strings.ContainsAny(name, "/@*?#\\ \t") {
		return fmt.Errorf("%s is not a host: write the host name alone (github.com, git.corp.example:8443), no scheme, user, path or wildcard", safetext.Quote(h))
	}
	return nil
}

// Skipping the advertisement
//
// Smart HTTP is stateless: a POST to git-upload-pack needs nothing from the
// GET of info/refs before it. When the commit is already known (an install
// from the lock, or blobs for a commit in the cache), assume() returns a
// conn whose "advertisement" is the capabilities every current git host
// offers, and the fetch costs one request fewer. Whatever goes wrong with
// an assumed conn (a server without filter, a redirect, a refusal, 401) is
// retried on a real one, which reads the advertisement and handles it as
// before; only then is an error reported. A host that answered 401 is not
// assumed again by the same Engine (Engine.credHosts), so private
// repositories behind a credential helper do not pay the extra request for
// every package of a command.

// assumedCaps are the capabilities an assumed conn takes the server to have.
func assumedCaps() []capability.Capability {
	return []capability.Capability{capability.OFSDelta, capability.Sideband64k, capability.Shallow, capability.NoProgress, capability.Filter}
}

func hostKey(r *remote) string {
	return fmt.Sprintf("%s://%s:%d", r.ep.Protocol, r.ep.Host, r.ep.Port)
}

// assume returns a conn over smart HTTP that skips the advertisement, or
// nil when r is not HTTP or its host wants credentials we do not have.
func (e *Engine) assume(r *remote) *conn {
	if !r.isHTTP() {
		return nil
	}
	if _, ok := e.mem.credHosts.Load(hostKey(r)); ok {
		return nil
	}
	c := &conn{e: e, r: r, assumed: true}
	c.initHTTP()
	sess, err := c.tr.NewUploadPackSession(r.ep, c.auth)
	if err != nil {
		return nil
	}
	adv := packp.NewAdvRefs()
	for _, cp := range assumedCaps() {
		_ = adv.Capabilities.Set(cp)
	}
	_ = adv.Capabilities.Set(capability.Agent, capability.DefaultAgent())
	c.sess, c.adv = sess, adv
	return c
}

// giveUp closes an assumed conn after err, noting a host that wants
// credentials.
func (c *conn) giveUp(err error) {
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		c.e.mem.credHosts.Store(hostKey(c.r), true)
	}
	c.close()
}

// open starts a session and reads the advertisement.
func (c *conn) open(ctx context.Context) error {
	if c.receive {
		return c.openReceive(ctx)
	}
	sess, err := c.tr.NewUploadPackSession(c.r.ep, c.auth)
	if err != nil {
		return err
	}
	adv, err := c.advertised(ctx, sess)
	if err != nil {
		return err
	}
	if c.sess != nil {
		_ = c.sess.Close()
	}
	c.sess, c.adv, c.used = sess, adv, false
	return nil
}

// advertised reads a new session's advertisement, within the engine's stall
// watch; when that fails it closes sess.
func (c *conn) advertised(ctx context.Context, sess transport.Session) (*packp.AdvRefs, error) {
	wctx, _, stop := c.e.watch(ctx)
	adv, err := sess.AdvertisedReferencesContext(wctx)
	stop()
	if err != nil {
		_ = sess.Close()
		return nil, stalled(wctx, err)
	}
	return adv, nil
}

// uploadPack sends one request. Over HTTP every request is independent; the
// stateful protocols (ssh, git) need a fresh session per request.
func (c *conn) uploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if c.used && !c.r.isHTTP() {
		if err := c.open(ctx); err != nil {
			return nil, err
		}
	}
	c.used = true
	return c.sess.UploadPack(ctx, req)
}

// openReceive starts a receive-pack session and reads its advertisement.
func (c *conn) openReceive(ctx context.Context) error {
	sess, err := c.tr.NewReceivePackSession(c.r.ep, c.auth)
	if err != nil {
		return err
	}
	adv, err := c.advertised(ctx, sess)
	if err != nil {
		return err
	}
	if c.rsess != nil {
		_ = c.rsess.Close()
	}
	c.rsess, c.adv = sess, adv
	return nil
}

func (c *conn) close() {
	if c.sess != nil {
		_ = c.sess.Close()
	}
	if c.rsess != nil {
		_ = c.rsess.Close()
	}
}

// knownHostsError is a known_hosts file sshAuth cannot read: missing, or
// not a known_hosts file. Its hint names the file and the host, so the
// Error carries it once (not also KindHostKey's general one).
type knownHostsError struct {
	file, host string
	port       int // 0 or 22: ssh's own
	err        error
}

func (k *knownHostsError) Error() string { return "read " + k.file + ": " + k.err.Error() }
func (k *knownHostsError) Unwrap() error { return k.err }

// hint says to check the host's key and add it to the file. The command
// it gives is one a user pastes into a shell, and the host comes from a
// manifest or a registry, untrusted: it is given only when the host and
// the file are words a shell takes as they are; a file that is there but
// not read is to be fixed, not added to (rv-walk22: a source
// git@`cmd`:r.git had ctx print "ssh-keyscan `cmd` >> ..."). A port
// other than ssh's is in it, as known_hosts keeps that key as [host]:port.
func (k *knownHostsError) hint() string {
	h := safetext.Clip(k.host, 0)
	if !errors.Is(k.err, fs.ErrNotExist) {
		// There, but not read as a known_hosts file (a bad line, a
		// folder, no permission): a key added to it would not be read.
		return "fix or move " + k.file + ": ctx reads it to check " + h + "'s key"
	}
	if !shellWord(k.host, false) || strings.HasPrefix(k.host, "-") || !shellWord(k.file, true) {
		return "check " + h + "'s key against what its owner publishes, then add it to " + k.file
	}
	port := ""
	if k.port != 0 && k.port != 22 {
		port = "-p " + strconv.Itoa(k.port) + " "
	}
	return "check " + h + "'s key against what its owner publishes, then add it: ssh-keyscan " + port + h + " >> " + k.file
}

// shellWord reports whether s is a non-empty word a POSIX shell reads as
// it is written: letters, digits and . _ - : (and / + = , @ for a path).
func shellWord(s string, path bool) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == ':':
		case path && strings.IndexByte("/+=,@", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func isLoopback(host string) bool {
	return host == "127.0.0.1" || host == "localhost" || host == "::1"
}

// sshAuth picks the ssh agent of Options.SSHAgent when set and reachable,
// else the first usable key of id_ed25519 and id_rsa in Options.SSHDir;
// host keys are checked strictly against known_hosts there.
func (e *Engine) sshAuth(user, host string) (transport.AuthMethod, error) {
	dir := e.opts.SSHDir
	if dir == "" {
		return nil, errors.New("no known_hosts to check the host key against: gitengine.Options.SSHDir is empty (cmd/ctx sets it to ~/.ssh)")
	}
	known := filepath.Join(dir, "known_hosts")
	if _, err := os.Stat(known); err != nil {
		// go-git's own words for a missing file send the user to
		// SSH_KNOWN_HOSTS, which a callback given its file never reads.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &knownHostsError{file: known, host: host, err: err}
	}
	hostKeys, err := gitssh.NewKnownHostsCallback(known)
	if err != nil {
		return nil, &knownHostsError{file: known, host: host, err: err}
	}
	if e.opts.SSHAgent != "" {
		if a, err := agentAuth(user, e.opts.SSHAgent); err == nil {
			a.HostKeyCallback = hostKeys
			return a, nil
		}
	}
	var tried []string
	for _, name := range []string{"id_ed25519", "id_rsa"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		k, err := gitssh.NewPublicKeysFromFile(user, p, "")
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		k.HostKeyCallback = hostKeys
		return k, nil
	}
	msg := fmt.Sprintf("no ssh agent (SSH_AUTH_SOCK) and no usable key in %s or %s", filepath.Join(dir, "id_ed25519"), filepath.Join(dir, "id_rsa"))
	if len(tried) > 0 {
		msg += " (" + strings.Join(tried, "; ") + "; passphrase-protected keys need the ssh agent)"
	}
	return nil, fmt.Errorf("%w: %s", transport.ErrAuthenticationRequired, msg)
}

// credential is what `git credential fill` answered.
type credential struct {
	protocol, host, path, user, pass string
}

func (c credential) input() string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol=%s\nhost=%s\n", c.protocol, c.host)
	if c.path != "" {
		fmt.Fprintf(&b, "path=%s\n", c.path)
	}
	if c.user != "" {
		fmt.Fprintf(&b, "username=%s\n", c.user)
	}
	if c.pass != "" {
		fmt.Fprintf(&b, "password=%s\n", c.pass)
	}
	return b.String()
}

// credentialFill asks git's credential helpers for the remote's credentials.
// It reports false when git is not installed or has no answer.
func (e *Engine) credentialFill(ctx context.Context, r *remote) (credential, bool) {
	host := r.ep.Host
	if r.ep.Port != 0 && !(r.ep.Protocol == "https" && r.ep.Port == 443) && !(r.ep.Protocol == "http" && r.ep.Port == 80) {
		host = fmt.Sprintf("%s:%d", host, r.ep.Port)
	}
	in := credential{protocol: r.ep.Protocol, host: host, path: strings.TrimPrefix(r.ep.Path, "/")}
	// One at a time (memory.credFill): git may ask at the terminal.
	e.mem.credFill.Lock()
	defer e.mem.credFill.Unlock()
	if e.opts.Prompting != nil {
		resume := e.opts.Prompting()
		defer resume()
	}
	out, err := e.credentialRun(ctx, "fill", in.input())
	if err != nil {
		return credential{}, false
	}
	got := in
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "username":
			got.user = v
		case "password":
			got.pass = v
		}
	}
	if got.pass == "" && got.user == "" {
		return credential{}, false
	}
	return got, true
}

// credentialRun runs `git credential <action>` with input on stdin. Git may
// prompt on the terminal when no helper answers; GIT_TERMINAL_PROMPT=0 stops it.
func (e *Engine) credentialRun(ctx context.Context, action, input string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, git, "credential", action)
	cmd.Env = e.opts.CredentialEnv
	cmd.Stdin = strings.NewReader(input + "\n")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return stdout.String(), nil
}

// agentAuth signs with the keys of the ssh agent listening on sock (what
// gitssh.NewSSHAgentAuth does, with the socket given rather than read from
// the environment).
func agentAuth(user, sock string) (*gitssh.PublicKeysCallback, error) {
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("connect to the ssh agent at %s: %w", sock, err)
	}
	return &gitssh.PublicKeysCallback{User: user, Callback: agent.NewClient(conn).Signers}, nil
}
