package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
)

// The agent files ctx points at its context: the instructions file a coding
// agent reads at the project root. CLAUDE.md is preferred when it exists;
// AGENTS.md is created when neither does.
const (
	AgentsFile = "AGENTS.md"
	ClaudeFile = "CLAUDE.md"
)

// The markers of ctx's block in an agent file. Each must be a line of its
// own (surrounding white space aside); everything outside them is the
// user's and never changed.
const (
	AgentsBegin = "<!-- ctx:begin -->"
	AgentsEnd   = "<!-- ctx:end -->"
)

// maxAgentsFile bounds the agent file ctx reads.
const maxAgentsFile = 4 << 20

// agentsBody is what ctx writes between its markers.
func agentsBody() []string {
	return []string{
		"## Project context (ctx)",
		"",
		"Documentation this project depends on is installed in `" + project.DirName + "/` by ctx.",
		"Start with `" + project.DirName + "/" + project.IndexName + "`, the overview of every package and document.",
		"Ask the ctx MCP server (`ctx mcp`): `read_relevant` answers a question in one",
		"call; `search`, `get_outline` and `get_section` find and read more. In a shell: `ctx search QUERY`.",
	}
}

// AgentsAction is what an AgentsEdit does to its file.
type AgentsAction string

const (
	AgentsCreate  AgentsAction = "create"     // a new file holding only the block
	AgentsAppend  AgentsAction = "append"     // the block added at the end of the file
	AgentsReplace AgentsAction = "update"     // the block replaced in place
	AgentsCurrent AgentsAction = "up to date" // nothing to change
)

// AgentsEdit is ctx's block in one agent file: the change that puts it
// there, or AgentsCurrent.
type AgentsEdit struct {
	// Name is the file in the project root: AgentsFile or ClaudeFile.
	Name string
	// Target is the file written: the path of Name, or when Name is a
	// symbolic link, the file inside the project it leads to.
	Target string
	// Link is, when Name is a symbolic link, its target's slash path in
	// the project ("AGENTS.md" for CLAUDE.md -> AGENTS.md).
	Link   string
	Action AgentsAction
	data   []byte
	perm   fs.FileMode
}

// PlanAgentsMD says what UpdateAgentsMD would do in the project at root,
// changing nothing. Which files: every agent file that has ctx's block
// already (so the block is never in two places after one run); when none
// has, CLAUDE.md if it exists, else AGENTS.md, created when missing.
//
// A file is refused with an error saying what to do when it is read-only
// (its owner may not write it: ctx does not override that), not a regular
// file, larger than 4 MB, or has markers that do not pair up or pair up
// twice. The agent files are outside .context/, where internal/confine's
// rule (no link at all) would refuse the common CLAUDE.md -> AGENTS.md, so
// the rule here is the project's edge: a symbolic link is followed when
// its target is inside the project (the target is rewritten, the link
// kept) and refused when it leads outside the project or nowhere.
func PlanAgentsMD(root string) ([]AgentsEdit, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("agent files: %w", err)
	}
	type file struct {
		name, target, link string
		data               []byte
		perm               fs.FileMode
		exists             bool
	}
	var files []file
	seen := map[string]bool{}
	for _, name := range []string{ClaudeFile, AgentsFile} {
		f := file{name: name, target: filepath.Join(realRoot, name), perm: 0o644}
		fi, err := os.Lstat(f.target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			files = append(files, f)
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if f.target, err = agentsLinkTarget(realRoot, name); err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(realRoot, f.target)
			f.link = filepath.ToSlash(rel)
			if _, err = os.Stat(f.target); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if seen[f.target] {
			continue // CLAUDE.md -> AGENTS.md: one file
		}
		seen[f.target] = true
		// Read bounded (internal/boundedfile: a regular file, no wait on
		// a fifo, at most maxAgentsFile), in the agent file's words.
		data, fi, err := boundedfile.Read(f.target, maxAgentsFile, boundedfile.Options{})
		var be *boundedfile.Error
		switch {
		case errors.As(err, &be) && be.Kind == boundedfile.ErrNotRegular:
			return nil, fmt.Errorf("%s is not a regular file: ctx puts its block only in a file; remove or rename it, or leave out --agents-md", name)
		case errors.As(err, &be):
			size := "over the bound"
			if be.Size >= 0 {
				size = fmt.Sprintf("%d bytes", be.Size)
			}
			return nil, fmt.Errorf("%s is %s, more than the %d ctx edits: add the block between %s and %s yourself", name, size, maxAgentsFile, AgentsBegin, AgentsEnd)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if fi.Mode().Perm()&0o200 == 0 {
			return nil, fmt.Errorf("%s is read-only: ctx does not change a file made read-only; make it writable (chmod u+w %s) and run again, or add the block between %s and %s yourself", name, name, AgentsBegin, AgentsEnd)
		}
		f.data = data
		f.perm, f.exists = fi.Mode().Perm(), true
		files = append(files, f)
	}
	var edits []AgentsEdit
	for _, f := range files {
		if !f.exists {
			continue
		}
		b, err := findAgentsBlock(f.data)
		if err != nil {
			return nil, fmt.Errorf("%s:%w", f.name, err)
		}
		if b.found {
			e := agentsEdit(f.name, f.target, f.data, f.perm, b)
			e.Link = f.link
			edits = append(edits, e)
		}
	}
	if len(edits) > 0 {
		return edits, nil
	}
	pick := files[0] // CLAUDE.md when it exists
	if !pick.exists && len(files) > 1 {
		pick = files[1] // AGENTS.md, made when missing
	}
	e := agentsEdit(pick.name, pick.target, pick.data, pick.perm, agentsBlock{})
	e.Link = pick.link
	return []AgentsEdit{e}, nil
}

// agentsLinkTarget resolves the link name in realRoot, the project folder
// with its own links resolved, and returns its target when that is inside
// the project.
func agentsLinkTarget(realRoot, name string) (string, error) {
	p := filepath.Join(realRoot, name)
	to, _ := os.Readlink(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link to %s, which does not exist: remove the link or create its target, then run again", name, safetext.Clip(to, 0))
	}
	if rel, ok := naming.RelIn(realRoot, real); !ok {
		return "", fmt.Errorf("%s is a symbolic link to %s, outside the project: ctx writes nothing outside the project; replace the link with a file, or add the block between %s and %s yourself", name, safetext.Clip(to, 0), AgentsBegin, AgentsEnd)
	} else if first, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); first == project.DirName || first == ".git" {
		// .context/ is written only through internal/confine (a package's
		// file edited here would be a local edit the guard reports), and
		// .git/ is git's.
		return "", fmt.Errorf("%s is a symbolic link to %s, inside %s/: ctx does not write its block there; replace the link with a file, or add the block between %s and %s yourself", name, safetext.Clip(to, 0), first, AgentsBegin, AgentsEnd)
	}
	return real, nil
}

// UpdateAgentsMD puts ctx's block into the project's agent file (see
// PlanAgentsMD), through atomicfile.WriteFile, keeping the file's mode.
// It returns what it did; an AgentsCurrent edit wrote nothing.
func UpdateAgentsMD(root string) ([]AgentsEdit, error) {
	edits, err := PlanAgentsMD(root)
	if err != nil {
		return nil, err
	}
	for _, e := range edits {
		if e.Action == AgentsCurrent {
			continue
		}
		if err := atomicfile.WriteFile(e.Target, e.data, e.perm); err != nil {
			return nil, fmt.Errorf("%s: %w: make the folder writable, or add the block between %s and %s yourself", e.Name, err, AgentsBegin, AgentsEnd)
		}
	}
	return edits, nil
}

// agentsBlock is where ctx's block is in a file: bytes [start, end), the
// begin marker's line through the end marker's line and its line end.
type agentsBlock struct {
	found      bool
	start, end int
}

// findAgentsBlock finds the one block of data. Markers that do not pair
// up, or a second block, are an error starting with the 1-based line
// (":12: …").
func findAgentsBlock(data []byte) (agentsBlock, error) {
	var b agentsBlock
	begin := 0 // line of an open begin marker
	for off, line := 0, 1; off < len(data); line++ {
		n := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if n >= 0 {
			next = off + n + 1
		}
		switch strings.TrimSpace(string(data[off:next])) {
		case AgentsBegin:
			if begin > 0 {
				return b, fmt.Errorf("%d: a second %s before the %s of line %d: fix the markers (or delete the block) and run again", line, AgentsBegin, AgentsEnd, begin)
			}
			if b.found {
				return b, fmt.Errorf("%d: a second ctx block: delete one of the two and run again", line)
			}
			begin, b.start = line, off
		case AgentsEnd:
			if begin == 0 {
				return b, fmt.Errorf("%d: %s without a %s before it: fix the markers (or delete the line) and run again", line, AgentsEnd, AgentsBegin)
			}
			begin, b.found, b.end = 0, true, next
		}
		off = next
	}
	if begin > 0 {
		return b, fmt.Errorf("%d: %s without its %s: fix the markers (or delete the line) and run again", begin, AgentsBegin, AgentsEnd)
	}
	return b, nil
}

// agentsEdit computes the edit of one file: data is its content (nil for
// a file to create) and b its block.
func agentsEdit(name, target string, data []byte, perm fs.FileMode, b agentsBlock) AgentsEdit {
	nl := "\n" // the file's line end: CRLF when it has one, or ends with a CR
	if bytes.Contains(data, []byte("\r\n")) || bytes.HasSuffix(data, []byte("\r")) {
		nl = "\r\n"
	}
	block := AgentsBegin + nl + strings.Join(agentsBody(), nl) + nl + AgentsEnd + nl
	e := AgentsEdit{Name: name, Target: target, perm: perm}
	var out []byte
	switch {
	case data == nil:
		e.Action, out = AgentsCreate, []byte(block)
	case b.found:
		e.Action = AgentsReplace
		old := data[b.start:b.end]
		if b.end == len(data) && !bytes.HasSuffix(old, []byte("\n")) {
			block = strings.TrimSuffix(block, nl) // the file ended without a line end: keep it so
		}
		if string(old) == block {
			e.Action = AgentsCurrent
		}
		out = append(append(append([]byte{}, data[:b.start]...), block...), data[b.end:]...)
	default:
		e.Action = AgentsAppend
		out = append([]byte{}, data...)
		switch {
		case bytes.HasSuffix(out, []byte("\r")):
			out = append(out, '\n') // the CR's line end
		case len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")):
			out = append(out, nl...)
		}
		if len(bytes.TrimSpace(out)) > 0 && !bytes.HasSuffix(out, []byte(nl+nl)) {
			out = append(out, nl...) // a blank line before the block
		}
		out = append(out, block...)
	}
	e.data = out
	return e
}
