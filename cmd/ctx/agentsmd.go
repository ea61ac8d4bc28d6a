package main

import (
	"errors"
	"fmt"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/wizard"
	"github.com/ctx-dev/ctx/workspace"
)

// agentsMDFlagUsage documents --agents-md for init and setup.
const agentsMDFlagUsage = "add (or update) a short pointer to .context/INDEX.md and 'ctx mcp' in AGENTS.md, or CLAUDE.md when it exists, between <!-- ctx:begin --> and <!-- ctx:end -->"

// agentsMDHelp is the paragraph init's and setup's help give it.
const agentsMDHelp = `At a terminal, it then offers to point coding agents at the context: a
short block, between <!-- ctx:begin --> and <!-- ctx:end -->, naming
.context/INDEX.md and 'ctx mcp', in the project's CLAUDE.md when it exists,
else its AGENTS.md (created when missing). --agents-md does it without
asking. Running it again updates the block in place, never adds a second
one, and never changes the text around it. A read-only file, markers that
do not pair up, or a symbolic link leading outside the project is refused
with an error.`

// agentsStep puts ctx's block into the project's agent file
// (workspace.UpdateAgentsMD): at once with --agents-md (flag), after
// asking when p (a terminal's prompter) is not nil, else not at all, and
// then, when hint is set and the block is missing or old, it says which
// flag does it.
// Ctrl-C or Ctrl-D at its question is an interrupt (exit 130): nothing
// of the agent file changes, and kept says what the command did stays.
func agentsStep(g *globalOptions, root string, flag bool, p wizard.Prompter, hint, kept string) error {
	errOut := g.IO.ErrOut // warnings; what it did or offers are notes (-q)
	if !flag {
		edits, err := workspace.PlanAgentsMD(root)
		if err != nil {
			if p != nil {
				fmt.Fprintf(errOut, "warning: agent file not changed: %s\n", g.deepText(err.Error()))
			}
			return nil
		}
		var todo []workspace.AgentsEdit
		for _, e := range edits {
			if e.Action != workspace.AgentsCurrent {
				todo = append(todo, e)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		if p == nil {
			if hint != "" {
				fmt.Fprintf(g.notes(), "%s adds a pointer to %s/%s and `ctx mcp` to %s, for coding agents\n", hint, project.DirName, project.IndexName, agentsName(todo[0]))
			}
			return nil
		}
		verb := "Add"
		if todo[0].Action == workspace.AgentsReplace {
			verb = "Update"
		}
		ok, err := p.Confirm(fmt.Sprintf("%s a pointer to %s/%s and `ctx mcp` in %s, for coding agents?", verb, project.DirName, project.IndexName, agentsName(todo[0])), true)
		if errors.Is(err, wizard.ErrInterrupted) {
			return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: no agent file changed; %s", kept)}
		}
		if !ok && err == nil {
			fmt.Fprintln(g.notes(), "no agent file changed")
			return nil
		}
		if err != nil {
			return err
		}
	}
	edits, err := workspace.UpdateAgentsMD(root)
	if err != nil {
		return err
	}
	for _, e := range edits {
		switch e.Action {
		case workspace.AgentsCreate:
			fmt.Fprintf(g.notes(), "created %s with a pointer to %s/%s and `ctx mcp`\n", agentsName(e), project.DirName, project.IndexName)
		case workspace.AgentsAppend:
			fmt.Fprintf(g.notes(), "added a pointer to %s/%s and `ctx mcp` to %s\n", project.DirName, project.IndexName, agentsName(e))
		case workspace.AgentsReplace:
			fmt.Fprintf(g.notes(), "updated ctx's block in %s\n", agentsName(e))
		default:
			fmt.Fprintf(g.notes(), "%s: ctx's block is up to date\n", agentsName(e))
		}
	}
	return nil
}

// agentsName is the edited file's name, with where its link leads.
func agentsName(e workspace.AgentsEdit) string {
	if e.Link != "" {
		return fmt.Sprintf("%s (a link to %s)", e.Name, safetext.Escape(e.Link))
	}
	return e.Name
}
