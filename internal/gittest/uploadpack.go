package gittest

import (
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// serveUploadPack answers a fetch's request (an upload-pack advertisement
// or exchange) the way git http-backend does, by running
// `git upload-pack --stateless-rpc` itself: the same program, arguments,
// environment, folder and standard input as http-backend gives it, the
// same response headers, and its output as the body, byte for byte
// (TestUploadPackAsHTTPBackend). It saves the http-backend process
// between the two (a third of the processes of a fetch). It reports
// false, answering nothing, for any request it does not take exactly as
// http-backend would (not a bare repository at that path, another content
// type or encoding): http-backend answers those, with its own errors.
func (s *Server) serveUploadPack(w http.ResponseWriter, r *http.Request) bool {
	if s.viaBackend {
		return false
	}
	p := path.Clean("/" + r.URL.Path)
	var repo string
	var advertise bool
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/info/refs") && r.URL.Query().Get("service") == "git-upload-pack":
		repo, advertise = strings.TrimSuffix(p, "/info/refs"), true
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/git-upload-pack"):
		repo = strings.TrimSuffix(p, "/git-upload-pack")
		if r.Header.Get("Content-Type") != "application/x-git-upload-pack-request" {
			return false
		}
	default:
		return false
	}
	dir := filepath.Join(s.root, filepath.FromSlash(repo))
	if !isBareRepo(dir) {
		return false // http-backend's path rules (a .git suffix added) and its 404
	}
	var in io.Reader = http.NoBody
	if !advertise {
		switch r.Header.Get("Content-Encoding") {
		case "":
			in = r.Body
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				return false
			}
			defer zr.Close()
			in = zr
		default:
			return false
		}
	}
	git, err := gitProgram("git")
	if err != nil {
		return false
	}
	exe, _ := execPath()
	mode := "--stateless-rpc"
	if advertise {
		mode = "--http-backend-info-refs"
	}
	cmd := exec.Command(git, "upload-pack", mode, ".")
	cmd.Dir = dir
	// http-backend's environment for the program (what git reads of it):
	// the server's settings, the anonymous committer, git's exec path
	// first on PATH.
	cmd.Env = append(append([]string{}, s.backend.Env...),
		"GIT_DIR=.",
		"GIT_EXEC_PATH="+exe,
		"GIT_COMMITTER_NAME=anonymous",
		"GIT_COMMITTER_EMAIL=anonymous@http."+remoteHost(r),
		"PATH="+exe+string(filepath.ListSeparator)+processEnv("PATH"))
	gitProtocol := r.Header.Get("Git-Protocol")
	if gitProtocol != "" {
		cmd.Env = append(cmd.Env, "GIT_PROTOCOL="+gitProtocol)
	}
	cmd.Stdin = in
	cmd.Stdout = w
	cmd.Stderr = s.backend.Stderr
	h := w.Header()
	h.Set("Expires", "Fri, 01 Jan 1980 00:00:00 GMT")
	h.Set("Pragma", "no-cache")
	h.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	if advertise {
		h.Set("Content-Type", "application/x-git-upload-pack-advertisement")
	} else {
		h.Set("Content-Type", "application/x-git-upload-pack-result")
	}
	w.WriteHeader(http.StatusOK)
	if advertise && !isProtocolV2(gitProtocol) {
		_, _ = io.WriteString(w, "001e# service=git-upload-pack\n0000")
	}
	_ = cmd.Run() // as under http-backend: the status is sent, the client sees the body cut
	return true
}

// processEnv is this process's value of the environment variable name
// (through Env, the one reader of the process's environment here; not
// HOME, XDG_CONFIG_HOME or GIT_*, which Env replaces or drops).
func processEnv(name string) string {
	for _, kv := range Env(noHome()) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// remoteHost is the client's address without its port, as CGI's
// REMOTE_ADDR gives it to http-backend.
func remoteHost(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

// isBareRepo reports whether dir is a bare repository: a HEAD file and an
// objects folder in it.
func isBareRepo(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "HEAD"))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	fi, err = os.Stat(filepath.Join(dir, "objects"))
	return err == nil && fi.IsDir()
}

// isProtocolV2 reports whether a Git-Protocol header asks for protocol
// version 2, as git's determine_protocol_version_server reads it: keys
// separated by colons, the last version= winning.
func isProtocolV2(h string) bool {
	v2 := false
	for _, kv := range strings.Split(h, ":") {
		if v, ok := strings.CutPrefix(kv, "version="); ok {
			v2 = v == "2"
		}
	}
	return v2
}
