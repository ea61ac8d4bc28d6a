package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// Clients are the MCP clients ClientConfig knows, by name.
var Clients = []string{"claude", "cursor", "codex", "vscode"}

// ClientConfig is a ready-to-paste configuration that makes a client
// start ctx's stdio server "ctx". Where says where it goes.
type ClientConfig struct {
	Text  string // the configuration itself
	Where string // where to paste it, for a person
	// Project is true for a configuration committed with the project
	// (.mcp.json, .cursor/mcp.json, .vscode/mcp.json): it names the
	// command "ctx" (found on PATH) and no absolute path, so that it works
	// for every teammate; false for a user's own (codex), which names exe
	// and projectDir.
	Project bool
}

// ProjectCommand is the command a project-scoped configuration starts:
// ctx on PATH.
const ProjectCommand = "ctx"

// ConfigFor returns client's configuration; exe and projectDir must be
// absolute. Claude Code, Cursor and VS Code read a configuration from the
// project, which a team commits: it starts "ctx mcp" from PATH, in the
// project (Claude Code starts it in the project folder; Cursor and VS
// Code are given ${workspaceFolder}). Codex's is the user's own, in
// ~/.codex/config.toml: it names exe and projectDir.
func ConfigFor(client, exe, projectDir string) (ClientConfig, error) {
	type stdioServer struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	inWorkspace := []string{"mcp", "-C", "${workspaceFolder}"}
	switch client {
	case "claude":
		server := stdioServer{Command: ProjectCommand, Args: []string{"mcp"}}
		return ClientConfig{
			Text: jsonText(map[string]any{"mcpServers": map[string]any{"ctx": server}}),
			Where: fmt.Sprintf("Claude Code: save as .mcp.json in %s (merge into mcpServers if it exists) and commit it: Claude Code starts ctx in the project folder, for anyone with ctx on PATH",
				projectDir),
			Project: true,
		}, nil
	case "cursor":
		return ClientConfig{
			Text:    jsonText(map[string]any{"mcpServers": map[string]any{"ctx": stdioServer{Command: ProjectCommand, Args: inWorkspace}}}),
			Where:   fmt.Sprintf("Cursor: save as %s/.cursor/mcp.json (merge into mcpServers if it exists) and commit it: it works for anyone with ctx on PATH", projectDir),
			Project: true,
		}, nil
	case "vscode":
		return ClientConfig{
			Text:    jsonText(map[string]any{"servers": map[string]any{"ctx": stdioServer{Type: "stdio", Command: ProjectCommand, Args: inWorkspace}}}),
			Where:   fmt.Sprintf("VS Code: save as %s/.vscode/mcp.json (merge into servers if it exists) and commit it: it works for anyone with ctx on PATH", projectDir),
			Project: true,
		}, nil
	case "codex":
		args := []string{"mcp", "-C", projectDir}
		var b strings.Builder
		b.WriteString("[mcp_servers.ctx]\n")
		fmt.Fprintf(&b, "command = %s\n", tomlString(exe))
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(q, ", "))
		return ClientConfig{Text: b.String(), Where: "Codex: add to ~/.codex/config.toml (your own configuration: it names this binary and this project)"}, nil
	}
	return ClientConfig{}, fmt.Errorf("unknown client %q: choose one of %s", client, strings.Join(Clients, ", "))
}

// NotOnPath is what to do when a project-scoped configuration's "ctx" is
// not on PATH on this machine: exe is the ctx that ran.
func NotOnPath(client, exe, projectDir string) string {
	mine := ""
	if client == "claude" {
		mine = fmt.Sprintf(", or, for yourself only: claude mcp add --scope user ctx -- %s", safetext.ShellJoin([]string{exe, "mcp", "-C", projectDir}))
	}
	return fmt.Sprintf("note: ctx is not on your PATH (this one is %s): add its folder to PATH, or install ctx where PATH finds it (go install github.com/ctx-dev/ctx/cmd/ctx@latest)%s", exe, mine)
}

// HTTPConfigFor returns client's configuration for a running
// `ctx mcp --http` at url, sending token in the Authorization header. The
// text holds the token: Where says to keep it in the user's own
// configuration, out of a repository.
func HTTPConfigFor(client, url, token string) (ClientConfig, error) {
	header := "Bearer " + token
	headers := map[string]string{"Authorization": header}
	const secret = " It holds your MCP token: keep it out of any repository."
	switch client {
	case "claude":
		return ClientConfig{
			Text: jsonText(map[string]any{"mcpServers": map[string]any{"ctx": map[string]any{"type": "http", "url": url, "headers": headers}}}),
			Where: fmt.Sprintf("Claude Code: run: claude mcp add --scope user --transport http ctx %s --header %s (or merge this into mcpServers of ~/.claude.json).",
				safetext.ShellJoin([]string{url}), safetext.ShellJoin([]string{"Authorization: " + header})) + secret,
		}, nil
	case "cursor":
		return ClientConfig{
			Text:  jsonText(map[string]any{"mcpServers": map[string]any{"ctx": map[string]any{"url": url, "headers": headers}}}),
			Where: "Cursor: merge into mcpServers of ~/.cursor/mcp.json." + secret,
		}, nil
	case "vscode":
		return ClientConfig{
			Text:  jsonText(map[string]any{"servers": map[string]any{"ctx": map[string]any{"type": "http", "url": url, "headers": headers}}}),
			Where: "VS Code: run 'MCP: Open User Configuration' and merge into servers." + secret,
		}, nil
	case "codex":
		var b strings.Builder
		b.WriteString("[mcp_servers.ctx]\n")
		fmt.Fprintf(&b, "url = %s\n", tomlString(url))
		fmt.Fprintf(&b, "http_headers = { \"Authorization\" = %s }\n", tomlString(header))
		return ClientConfig{Text: b.String(), Where: "Codex: add to ~/.codex/config.toml." + secret}, nil
	}
	return ClientConfig{}, fmt.Errorf("unknown client %q: choose one of %s", client, strings.Join(Clients, ", "))
}

func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // maps of strings always encode
	return b.String()
}

// tomlString quotes s as a TOML basic string (JSON's escapes are valid TOML).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
