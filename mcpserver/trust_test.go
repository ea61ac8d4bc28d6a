package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileProject is a cloned project whose committed manifest names a dir
// source outside it ("../secret", the issue's ../../.config/gh) next to
// one of its own, whose .gitignore ignores a file. It returns the project.
func hostileProject(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "proj")
	writeFile(t, filepath.Join(dir, ".context", "context.config.json"), `{"index":{},"packages":[
  {"alias":"project-docs","kind":"dir","source":"./docs"},
  {"alias":"x","kind":"dir","source":"../secret"}
]}`)
	writeFile(t, filepath.Join(dir, "docs", "guide.md"), "# Guide\n\nDeploys follow the zanzibar procedure.\n")
	writeFile(t, filepath.Join(dir, "docs", ".gitignore"), "private.md\nbuild/\n")
	writeFile(t, filepath.Join(dir, "docs", "private.md"), "# Private\n\nprivateword\n")
	writeFile(t, filepath.Join(dir, "docs", "build", "out.md"), "# Built\n\nbuildword\n")
	writeFile(t, filepath.Join(base, "secret", "hosts.md"), "# hosts\n\noauth_token: gho_SECRET\n")
	return dir
}

// checkNotServed asserts, over cs, that the outside source's file and the
// gitignored files are not served, and the project's own file is.
func checkNotServed(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	for _, args := range []map[string]any{
		{"package": "x", "path": "hosts.md"},
		{"path": "@ctx/x/hosts.md"},
		{"package": "project-docs", "path": "private.md"},
		{"package": "project-docs", "path": "build/out.md"},
	} {
		res := call(t, cs, "get_document", args, nil)
		if !res.IsError || strings.Contains(text(res), "gho_SECRET") || strings.Contains(text(res), "privateword") || strings.Contains(text(res), "buildword") {
			t.Errorf("get_document %v served: %s", args, text(res))
		}
	}
	res := call(t, cs, "get_document", map[string]any{"package": "project-docs", "path": "guide.md"}, nil)
	if res.IsError || !strings.Contains(text(res), "zanzibar") {
		t.Errorf("get_document project-docs/guide.md: %s", text(res))
	}
	var list ListContextsOut
	call(t, cs, "list_contexts", map[string]any{}, &list)
	for _, c := range list.Packages {
		if c.Alias == "x" {
			t.Errorf("list_contexts lists the refused source: %+v", c)
		}
	}
}

// TestOutsideSourceNotServedStdio: a committed dir source outside the
// project is not served over stdio, and the server says so on stderr.
func TestOutsideSourceNotServedStdio(t *testing.T) {
	dir := hostileProject(t)
	var s *Server
	cs := connectStdio(t, dir, &s)
	checkNotServed(t, cs)

	var log lockedBuffer
	srv, err := New(Options{ProjectDir: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.snapshot()
	log.mu.Lock()
	got := log.b.String()
	log.mu.Unlock()
	if !strings.Contains(got, "not served") || !strings.Contains(got, `package \"x\"`) || !strings.Contains(got, "outside the project") {
		t.Errorf("log = %q, want a warning naming x", got)
	}
}

// TestOutsideSourceNotServedHTTP: the same over HTTP.
func TestOutsideSourceNotServedHTTP(t *testing.T) {
	dir := hostileProject(t)
	h := startHTTP(t, dir, HTTPOptions{})
	checkNotServed(t, httpClient(t, h, ""))
}
