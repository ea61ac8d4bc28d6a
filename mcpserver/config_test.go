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
		if command != exe || strings.Join(args, "|") != "mcp|-C|"+dir {
			t.Errorf("%s: command %q args %q", client, command, args)
		}
	}
	if _, err := ConfigFor("emacs", exe, dir); err == nil || !strings.Contains(err.Error(), "claude") {
		t.Errorf("unknown client: %v", err)
	}
}
