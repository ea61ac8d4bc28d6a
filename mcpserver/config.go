package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Clients are the MCP clients ClientConfig knows, by name.
var Clients = []string{"claude", "cursor", "codex", "vscode"}

// ClientConfig is a ready-to-paste configuration that makes client start
// `<exe> mcp -C <projectDir>` as the stdio server "ctx". Where says where it
// goes.
type ClientConfig struct {
	Text  string // the configuration itself
	Where string // where to paste it, for a person
}

// ConfigFor returns client's configuration; exe and projectDir must be
// absolute.
func ConfigFor(client, exe, projectDir string) (ClientConfig, error) {
	args := []string{"mcp", "-C", projectDir}
	type stdioServer struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	server := stdioServer{Command: exe, Args: args}
	switch client {
	case "claude":
		return ClientConfig{
			Text: jsonText(map[string]any{"mcpServers": map[string]any{"ctx": server}}),
			Where: fmt.Sprintf("Claude Code: save as .mcp.json in %s (merge into mcpServers if it exists), or run: claude mcp add ctx -- %s",
				projectDir, shellJoin(append([]string{exe}, args...))),
		}, nil
	case "cursor":
		return ClientConfig{
			Text:  jsonText(map[string]any{"mcpServers": map[string]any{"ctx": server}}),
			Where: fmt.Sprintf("Cursor: save as %s/.cursor/mcp.json (merge into mcpServers if it exists)", projectDir),
		}, nil
	case "vscode":
		return ClientConfig{
			Text:  jsonText(map[string]any{"servers": map[string]any{"ctx": stdioServer{Type: "stdio", Command: exe, Args: args}}}),
			Where: fmt.Sprintf("VS Code: save as %s/.vscode/mcp.json (merge into servers if it exists)", projectDir),
		}, nil
	case "codex":
		var b strings.Builder
		b.WriteString("[mcp_servers.ctx]\n")
		fmt.Fprintf(&b, "command = %s\n", tomlString(exe))
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(q, ", "))
		return ClientConfig{Text: b.String(), Where: "Codex: add to ~/.codex/config.toml"}, nil
	}
	return ClientConfig{}, fmt.Errorf("unknown client %q: choose one of %s", client, strings.Join(Clients, ", "))
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
				shellJoin([]string{url}), shellJoin([]string{"Authorization: " + header})) + secret,
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

// shellJoin quotes args for a POSIX shell where needed.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
