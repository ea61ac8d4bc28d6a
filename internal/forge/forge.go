// Package forge knows the code hosts a pushed branch can become a pull
// request on: which host a git remote is on (GitHub, GitLab, Bitbucket),
// the web page that compares a branch with its base there, and how a pull
// request is opened on GitHub, through the `gh` command or the REST API.
// It reads no environment: the token, the API's address and the gh binary
// come in through Options.
package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// Host is a code host ctx knows.
type Host string

const (
	GitHub    Host = "github"
	GitLab    Host = "gitlab"
	Bitbucket Host = "bitbucket"
)

// Repo is a repository on a known host.
type Repo struct {
	Host  Host
	Web   string // https://HOST
	Owner string // owner, or group/subgroup on GitLab
	Name  string
}

// Parse finds the host, owner and name of a git remote URL (https, ssh://
// or scp-like git@host:owner/name), credentials dropped. ok is false for
// another host or a local path.
func Parse(remote string) (r Repo, ok bool) {
	host, p := "", ""
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		switch u.Scheme {
		case "https", "http", "ssh", "git":
		default:
			return Repo{}, false
		}
		host, p = u.Hostname(), u.Path
	} else if at, rest, found := strings.Cut(remote, "@"); found && !strings.Contains(at, "/") {
		h, path, ok := strings.Cut(rest, ":")
		if !ok {
			return Repo{}, false
		}
		host, p = h, path
	} else {
		return Repo{}, false
	}
	host = strings.ToLower(host)
	switch {
	case host == "github.com" || host == "www.github.com":
		r.Host, host = GitHub, "github.com"
	case host == "gitlab.com" || strings.HasPrefix(host, "gitlab."):
		r.Host = GitLab
	case host == "bitbucket.org" || host == "www.bitbucket.org":
		r.Host, host = Bitbucket, "bitbucket.org"
	default:
		return Repo{}, false
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	i := strings.LastIndex(p, "/")
	if i <= 0 || i == len(p)-1 {
		return Repo{}, false
	}
	r.Web, r.Owner, r.Name = "https://"+host, p[:i], p[i+1:]
	if r.Host != GitLab && strings.Contains(r.Owner, "/") {
		return Repo{}, false
	}
	return r, true
}

// CompareURL is the page that compares branch with base and offers to
// open a pull (merge) request.
func (r Repo) CompareURL(base, branch string) string {
	esc := func(s string) string { return strings.ReplaceAll(url.PathEscape(s), "%2F", "/") }
	switch r.Host {
	case GitHub:
		return fmt.Sprintf("%s/%s/%s/compare/%s...%s?expand=1", r.Web, r.Owner, r.Name, esc(base), esc(branch))
	case GitLab:
		return fmt.Sprintf("%s/%s/%s/-/merge_requests/new?%s", r.Web, r.Owner, r.Name,
			url.Values{"merge_request[source_branch]": {branch}, "merge_request[target_branch]": {base}}.Encode())
	case Bitbucket:
		return fmt.Sprintf("%s/%s/%s/pull-requests/new?%s", r.Web, r.Owner, r.Name, url.Values{"source": {branch}, "dest": {base}}.Encode())
	}
	return ""
}

// DefaultAPI is GitHub's REST API.
const DefaultAPI = "https://api.github.com"

// Options configure OpenPR.
type Options struct {
	// Gh is the path of the gh command; "" means do not use gh.
	Gh string
	// Token is a GitHub token for the REST API (cmd/ctx: $GITHUB_TOKEN).
	Token string
	// API is the REST API's base URL; "" means DefaultAPI.
	API string
	// Client is the HTTP client of REST calls; nil means one with a
	// 30-second timeout.
	Client *http.Client
}

// PR is a pull request to open: Head (the pushed branch) into Base.
type PR struct {
	Repo        Repo
	Base, Head  string
	Title, Body string
}

// maxResponse bounds what the API's answer may hold.
const maxResponse = 1 << 20

// OpenPR opens a pull request on GitHub and returns its URL: through gh
// when Options.Gh is set and `gh auth status` succeeds, else through the
// REST API with Options.Token. With neither it says what to do.
func OpenPR(ctx context.Context, o Options, pr PR) (string, error) {
	if pr.Repo.Host != GitHub {
		return "", fmt.Errorf("ctx opens pull requests on GitHub only, not on %s: open it from the compare page", pr.Repo.Host)
	}
	if o.Gh != "" && exec.CommandContext(ctx, o.Gh, "auth", "status", "--hostname", "github.com").Run() == nil {
		return openWithGh(ctx, o.Gh, pr)
	}
	if o.Token == "" {
		return "", errors.New("cannot open a pull request: gh is not installed or not logged in (gh auth login), and GITHUB_TOKEN is not set; set one of them, or open it from the compare page")
	}
	return openWithAPI(ctx, o, pr)
}

func openWithGh(ctx context.Context, gh string, pr PR) (string, error) {
	cmd := exec.CommandContext(ctx, gh, "pr", "create", "--repo", pr.Repo.Owner+"/"+pr.Repo.Name,
		"--base", pr.Base, "--head", pr.Head, "--title", pr.Title, "--body", pr.Body)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := errb.String(); strings.Contains(msg, "already exists") {
			// gh names the open pull request of the branch on its last line.
			if f := strings.Fields(msg); len(f) > 0 && strings.HasPrefix(f[len(f)-1], "https://") {
				return f[len(f)-1], nil
			}
		}
		return "", fmt.Errorf("gh pr create: %w: %s", err, safetext.Clip(strings.TrimSpace(errb.String()), 0))
	}
	lines := strings.Fields(out.String())
	if len(lines) == 0 {
		return "", errors.New("gh pr create printed no pull request URL")
	}
	return lines[len(lines)-1], nil
}

func openWithAPI(ctx context.Context, o Options, pr PR) (string, error) {
	body, err := json.Marshal(map[string]string{"title": pr.Title, "head": pr.Head, "base": pr.Base, "body": pr.Body})
	if err != nil {
		return "", err
	}
	status, statusLine, data, err := o.call(ctx, http.MethodPost, pullsURL(o, pr.Repo), body)
	if err != nil {
		return "", fmt.Errorf("open a pull request through the GitHub API: %w", err)
	}
	var ans struct {
		HTMLURL string `json:"html_url"`
		Message string `json:"message"`
		Errors  []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(data, &ans)
	if status != http.StatusCreated || ans.HTMLURL == "" {
		msg := ans.Message
		for _, e := range ans.Errors {
			if e.Message != "" {
				msg += "; " + e.Message
			}
		}
		if status == http.StatusUnprocessableEntity && strings.Contains(msg, "already exists") {
			// The branch was pushed before with these edits and its pull
			// request is open: that is the one asked for.
			if u, err := openPRFor(ctx, o, pr); err == nil && u != "" {
				return u, nil
			}
		}
		if msg == "" {
			msg = "no pull request URL in the answer"
		}
		hint := "open it from the compare page"
		if status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound {
			hint = "check that GITHUB_TOKEN may create pull requests on " + pr.Repo.Owner + "/" + pr.Repo.Name + ", or open it from the compare page"
		}
		return "", fmt.Errorf("open a pull request through the GitHub API: %s: %s (%s)", safetext.Clip(statusLine, 0), safetext.Clip(msg, 0), hint)
	}
	return ans.HTMLURL, nil
}

// openPRFor is the URL of the open pull request from pr.Head into
// pr.Base, "" when there is none.
func openPRFor(ctx context.Context, o Options, pr PR) (string, error) {
	q := url.Values{"head": {pr.Repo.Owner + ":" + pr.Head}, "base": {pr.Base}, "state": {"open"}}
	status, _, data, err := o.call(ctx, http.MethodGet, pullsURL(o, pr.Repo)+"?"+q.Encode(), nil)
	if err != nil {
		return "", err
	}
	var list []struct {
		HTMLURL string `json:"html_url"`
	}
	if status != http.StatusOK || json.Unmarshal(data, &list) != nil || len(list) == 0 {
		return "", nil
	}
	return list[0].HTMLURL, nil
}

// pullsURL is the API's pull requests of repo.
func pullsURL(o Options, repo Repo) string {
	api := strings.TrimSuffix(o.API, "/")
	if api == "" {
		api = DefaultAPI
	}
	return fmt.Sprintf("%s/repos/%s/%s/pulls", api, url.PathEscape(repo.Owner), url.PathEscape(repo.Name))
}

// call makes one REST call with o's token and returns the status, its
// line as the server sent it, and the answer (at most maxResponse bytes).
func (o Options) call(ctx context.Context, method, u string, body []byte) (int, string, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("Authorization", "Bearer "+o.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	c := o.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return 0, "", nil, fmt.Errorf("read the answer: %w", err)
	}
	return resp.StatusCode, resp.Status, data, nil
}
