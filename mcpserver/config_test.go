package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestConfigFor(t *testing.T) {
	t.Parallel()
	exe, dir := "/opt/my tools/ctx", `/home/a "b"/proj`
	for _, client := range Clients {
		cfg, err := ConfigFor(client, exe, dir)
		if err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		if cfg.Where == "" {
			t.Errorf("%s: no hint where to paste", client)
		}
		var command string
		var args []string
		switch client {
		case "codex":
			// command = "…" / args = ["mcp", "-C", "…"]: TOML basic strings are JSON strings.
			lines := strings.Split(strings.TrimSpace(cfg.Text), "\n")
			if len(lines) != 3 || lines[0] != "[mcp_servers.ctx]" {
				t.Fatalf("codex config = %q", cfg.Text)
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "command = ")), &command); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[2], "args = ")), &args); err != nil {
				t.Fatal(err)
			}
		default:
			var m map[string]map[string]struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			if err := json.Unmarshal([]byte(cfg.Text), &m); err != nil {
				t.Fatalf("%s: not JSON: %v\n%s", client, err, cfg.Text)
			}
			key := "mcpServers"
			if client == "vscode" {
				key = "servers"
				if m[key]["ctx"].Type != "stdio" {
					t.Errorf("vscode: type = %q", m[key]["ctx"].Type)
				}
			}
			command, args = m[key]["ctx"].Command, m[key]["ctx"].Args
		}
		// A project's configuration (committed) names ctx on PATH and no
		// absolute path; a user's own (codex) names this binary and project.
		want, wantArgs := "ctx", "mcp|-C|${workspaceFolder}"
		switch client {
		case "claude":
			wantArgs = "mcp"
		case "codex":
			want, wantArgs = exe, "mcp|-C|"+dir
		}
		if command != want || strings.Join(args, "|") != wantArgs || cfg.Project != (client != "codex") {
			t.Errorf("%s: command %q args %q project %v; want %q %q", client, command, args, cfg.Project, want, wantArgs)
		}
		if cfg.Project && strings.Contains(cfg.Text, dir) {
			t.Errorf("%s: a project's configuration names the checkout %s:\n%s", client, dir, cfg.Text)
		}
	}
	if _, err := ConfigFor("emacs", exe, dir); err == nil || !strings.Contains(err.Error(), "claude") {
		t.Errorf("unknown client: %v", err)
	}
}
