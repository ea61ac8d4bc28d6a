package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeString(t *testing.T, p, s string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), perm); err != nil {
		t.Fatal(err)
	}
}

func update(t *testing.T, root string) []AgentsEdit {
	t.Helper()
	edits, err := UpdateAgentsMD(root)
	if err != nil {
		t.Fatal(err)
	}
	return edits
}

func block() string {
	return AgentsBegin + "\n" + strings.Join(agentsBody(), "\n") + "\n" + AgentsEnd + "\n"
}

func TestAgentsMDCreateAndAppend(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := update(t, root)
	if len(e) != 1 || e[0].Name != AgentsFile || e[0].Action != AgentsCreate {
		t.Fatalf("edits = %+v, want AGENTS.md created", e)
	}
	if got := readString(t, filepath.Join(root, AgentsFile)); got != block() {
		t.Errorf("AGENTS.md = %q", got)
	}
	if e := update(t, root); e[0].Action != AgentsCurrent {
		t.Errorf("again: %+v, want up to date", e)
	}

	// The user's text stays as it is, the block goes after a blank line.
	root = t.TempDir()
	writeString(t, filepath.Join(root, AgentsFile), "# Rules\n\nBe nice.", 0o600)
	if e := update(t, root); e[0].Action != AgentsAppend {
		t.Fatalf("edits = %+v, want append", e)
	}
	if got, want := readString(t, filepath.Join(root, AgentsFile)), "# Rules\n\nBe nice.\n\n"+block(); got != want {
		t.Errorf("AGENTS.md = %q, want %q", got, want)
	}
	if fi, _ := os.Stat(filepath.Join(root, AgentsFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600 kept", fi.Mode().Perm())
	}
}

func TestAgentsMDReplaceInPlace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	before, after := "# Rules\r\n\r\nBe nice.\r\n\r\n", "\r\n## Mine\r\n\r\nMore rules, after ctx's.\r\n"
	old := "  " + AgentsBegin + "\r\nan old pointer\r\n" + AgentsEnd + "  \r\n"
	writeString(t, filepath.Join(root, AgentsFile), before+old+after, 0o644)
	writeString(t, filepath.Join(root, ClaudeFile), "# Claude\n", 0o644) // preferred, but the block is in AGENTS.md
	e := update(t, root)
	if len(e) != 1 || e[0].Name != AgentsFile || e[0].Action != AgentsReplace {
		t.Fatalf("edits = %+v, want AGENTS.md's block replaced", e)
	}
	crlf := strings.ReplaceAll(block(), "\n", "\r\n")
	if got := readString(t, filepath.Join(root, AgentsFile)); got != before+crlf+after {
		t.Errorf("AGENTS.md = %q, want %q", got, before+crlf+after)
	}
	if got := readString(t, filepath.Join(root, ClaudeFile)); got != "# Claude\n" {
		t.Errorf("CLAUDE.md changed: %q", got)
	}
	if e := update(t, root); e[0].Action != AgentsCurrent {
		t.Errorf("again: %+v", e)
	}
}

func TestAgentsMDPrefersClaude(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeString(t, filepath.Join(root, AgentsFile), "# Agents\n", 0o644)
	writeString(t, filepath.Join(root, ClaudeFile), "# Claude\n", 0o644)
	if e := update(t, root); e[0].Name != ClaudeFile || e[0].Action != AgentsAppend {
		t.Fatalf("edits = %+v, want CLAUDE.md", e)
	}
	if got := readString(t, filepath.Join(root, AgentsFile)); got != "# Agents\n" {
		t.Errorf("AGENTS.md changed: %q", got)
	}
	if got := readString(t, filepath.Join(root, ClaudeFile)); got != "# Claude\n\n"+block() {
		t.Errorf("CLAUDE.md = %q", got)
	}
}

func TestAgentsMDRefusals(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		content string
		perm    os.FileMode
		want    string
	}{
		"read-only":  {"# Rules\n", 0o444, "AGENTS.md is read-only"},
		"no end":     {"a\n" + AgentsBegin + "\nb\n", 0o644, "AGENTS.md:2: " + AgentsBegin + " without its " + AgentsEnd},
		"no begin":   {"a\nb\n" + AgentsEnd + "\n", 0o644, "AGENTS.md:3: " + AgentsEnd + " without a " + AgentsBegin},
		"two begins": {AgentsBegin + "\n" + AgentsBegin + "\n" + AgentsEnd + "\n", 0o644, "AGENTS.md:2: a second " + AgentsBegin},
		"two blocks": {block() + "x\n" + block(), 0o644, "AGENTS.md:10: a second ctx block"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			p := filepath.Join(root, AgentsFile)
			writeString(t, p, c.content, c.perm)
			_, err := UpdateAgentsMD(root)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if got := readString(t, p); got != c.content {
				t.Errorf("the file changed: %q", got)
			}
		})
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, AgentsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := UpdateAgentsMD(root); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder: %v", err)
	}
}

// TestAgentsMDLinks: a link to a file inside the project is followed (the
// target rewritten, the link kept); a link that leaves the project or
// leads nowhere is refused, and nothing outside is written.
func TestAgentsMDLinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeString(t, filepath.Join(root, AgentsFile), "# Agents\n", 0o644)
	if err := os.Symlink(AgentsFile, filepath.Join(root, ClaudeFile)); err != nil {
		t.Fatal(err)
	}
	e := update(t, root)
	if len(e) != 1 || e[0].Name != ClaudeFile || e[0].Link != AgentsFile || e[0].Action != AgentsAppend {
		t.Fatalf("edits = %+v, want CLAUDE.md, a link to AGENTS.md", e)
	}
	if fi, err := os.Lstat(filepath.Join(root, ClaudeFile)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a link: %v %v", fi, err)
	}
	if got := readString(t, filepath.Join(root, AgentsFile)); got != "# Agents\n\n"+block() {
		t.Errorf("AGENTS.md = %q", got)
	}
	if e := update(t, root); len(e) != 1 || e[0].Action != AgentsCurrent {
		t.Errorf("again: %+v", e)
	}

	outside := filepath.Join(t.TempDir(), "shared.md")
	writeString(t, outside, "# Shared\n", 0o644)
	root = t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, AgentsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := UpdateAgentsMD(root); err == nil || !strings.Contains(err.Error(), "outside the project") {
		t.Errorf("a link outside: %v", err)
	}
	if got := readString(t, outside); got != "# Shared\n" {
		t.Errorf("the file outside changed: %q", got)
	}

	root = t.TempDir()
	if err := os.Symlink("missing.md", filepath.Join(root, ClaudeFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := UpdateAgentsMD(root); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a dangling link: %v", err)
	}

	// A link into .context/ (a package's file) is refused: nothing there is
	// written but through internal/confine.
	root = t.TempDir()
	pkgFile := filepath.Join(root, ".context", "packages", "api", "AGENTS.md")
	if err := os.MkdirAll(filepath.Dir(pkgFile), 0o755); err != nil {
		t.Fatal(err)
	}
	writeString(t, pkgFile, "# Package\n", 0o644)
	if err := os.Symlink(filepath.Join(".context", "packages", "api", "AGENTS.md"), filepath.Join(root, AgentsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := UpdateAgentsMD(root); err == nil || !strings.Contains(err.Error(), "inside .context/") {
		t.Errorf("a link into .context: %v", err)
	}
	if got := readString(t, pkgFile); got != "# Package\n" {
		t.Errorf("the package's file changed: %q", got)
	}
}

// FuzzAgentsEdit: whatever the file holds, an edit keeps the bytes
// outside ctx's block, leaves exactly one block, and a second edit
// changes nothing.
func FuzzAgentsEdit(f *testing.F) {
	for _, s := range []string{"", "# x\n", "a\r\nb", block(), "pre\n" + AgentsBegin + "\nold\n" + AgentsEnd + "\npost", AgentsEnd, "\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := findAgentsBlock(data)
		if err != nil {
			return
		}
		e := agentsEdit(AgentsFile, "", data, 0o644, b)
		out := e.data
		b2, err := findAgentsBlock(out)
		if err != nil || !b2.found {
			t.Fatalf("after the edit: %v, found %v\n%q", err, b2.found, out)
		}
		if b.found {
			if !bytes.Equal(out[:b2.start], data[:b.start]) || !bytes.Equal(out[b2.end:], data[b.end:]) {
				t.Fatalf("text outside the block changed:\n%q\n%q", data, out)
			}
		} else if !bytes.HasPrefix(out, data) {
			t.Fatalf("the user's text changed:\n%q\n%q", data, out)
		}
		if again := agentsEdit(AgentsFile, "", out, 0o644, b2); again.Action != AgentsCurrent || !bytes.Equal(again.data, out) {
			t.Fatalf("a second edit changed %q into %q", out, again.data)
		}
	})
}
