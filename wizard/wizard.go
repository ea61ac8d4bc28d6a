// Package wizard is the logic of `ctx setup`: from a registry and the
// project's manifest, decide what to install and remove, ask the user (through
// a Prompter) or read the choice from flags, check access to each repository,
// apply the change through the workspace and summarise it.
//
// The logic never touches a terminal itself: an interactive run talks to a
// Prompter (the survey adapter in wizard/surveyprompt, a fake in tests); a
// run without a Prompter is the non-interactive mode driven by flags.
package wizard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/internal/termenv"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
	"github.com/ctx-dev/ctx/webfetch"
	"github.com/ctx-dev/ctx/workspace"
)

// ErrInterrupted is returned when the user cancels (Ctrl-C at a prompt).
// Nothing has been changed when Run returns it.
var ErrInterrupted = errors.New("setup cancelled: nothing was changed")

// Choice is one line of the multi-select.
type Choice struct {
	Name        string
	Description string
	Tags        []string
	Installed   bool
	// Disabled, when not empty, says why the choice cannot be selected (no
	// access to its repository, say). A Prompter shows it and refuses it.
	Disabled string
}

// Prompter asks the user. Every method returns ErrInterrupted when the user
// cancels.
type Prompter interface {
	// MultiSelect shows choices with the ones at indexes selected pre-checked
	// and returns the indexes the user leaves checked, in ascending order.
	MultiSelect(message string, choices []Choice, selected []int) ([]int, error)
	// Confirm asks a yes/no question.
	Confirm(message string, def bool) (bool, error)
	// Spinner shows message with an activity indicator until stop is called;
	// stop prints final (when not empty) in its place, marked as what went
	// well (ok) or not.
	Spinner(message string) (stop func(ok bool, final string))
}

// Workspace is what the wizard needs of an open project
// (*workspace.Workspace satisfies it).
type Workspace interface {
	Manifest() project.Manifest
	SetRegistry(url string) error
	Add(ctx context.Context, specs []project.PackageSpec, o workspace.AddOptions) (*workspace.Report, error)
	Remove(ctx context.Context, aliases []string, o workspace.RemoveOptions) (*workspace.Report, error)
	Reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error)
	// IndexStale reports whether the index is missing or out of date
	// (workspace.Workspace.IndexStale).
	IndexStale() bool
	// PrivateNotAllowed returns those of aliases whose committed git
	// host is on the private network and not allowed by the user.
	PrivateNotAllowed(ctx context.Context, aliases []string) []string
}

// AccessChecker checks whether the user can read a source: a git
// repository (*gitengine.Engine satisfies it) or an https URL
// ([HTTPAccess]).
type AccessChecker interface {
	CheckAccess(ctx context.Context, url string) error
}

// Options configure Run.
type Options struct {
	Registry *registry.Result
	// RegistryLocation is saved in the manifest (when not empty and different).
	RegistryLocation string
	// FromManifest: the registry is the one the committed manifest names,
	// not one the user gave (--registry, CTX_REGISTRY, their config), so
	// its repositories on this machine outside the project are not
	// allowed for the user (workspace.AddOptions.NoAllowOutside).
	FromManifest bool
	// Prompter nil means non-interactive: the selection comes from Select,
	// Tags and All, and at least one of them must be given.
	Prompter Prompter
	Select   []string // context names
	Tags     []string // every context with any of these tags
	All      bool     // every context
	Yes      bool     // do not ask before installing (a removal still asks)
	// AllowPrivate lets https contexts be on loopback, private and
	// link-local addresses: the access check allows them, and their specs
	// say so (allowPrivateNetwork).
	AllowPrivate bool
	// Out receives the summary; Log receives notes and warnings.
	Out, Log io.Writer
	// Symbols are the terminal's marks (termenv.SymbolsFor); the zero
	// value is ASCII's.
	Symbols termenv.Symbols
	// Jobs bounds the parallel access checks; 0 = DefaultJobs.
	Jobs int
	// CheckTimeout bounds one access check; 0 = DefaultCheckTimeout.
	CheckTimeout time.Duration
	// HTTPSAccess checks the https contexts (Run's access checks the git
	// ones); nil = HTTPAccess{}, a plain bounded GET.
	HTTPSAccess AccessChecker
}

// Defaults of Options.Jobs and Options.CheckTimeout.
const (
	DefaultJobs         = 8
	DefaultCheckTimeout = 30 * time.Second
)

// UsageError is a mistake in the flags (exit code 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Unavailable is a context that was wanted or offered but cannot be read.
type Unavailable struct {
	Name, Repo string
	Reason     string
}

// Summary is what Run did.
type Summary struct {
	Added       []string // aliases asked to be installed
	Removed     []string // aliases asked to be removed
	Unavailable []Unavailable
	// Reports from the workspace; nil when the step did not run.
	AddReport, RemoveReport *workspace.Report
	Index                   *indexer.SyncReport
	// Declined: the user answered no at the confirmation.
	Declined bool
}

// Run is `ctx setup` once the registry is loaded and the project is open.
// It returns ErrInterrupted (nothing changed) when the user cancels, a
// *UsageError for bad flags, and otherwise a Summary the caller prints
// (Summary.Print, or its own report format).
func Run(ctx context.Context, ws Workspace, access AccessChecker, o Options) (*Summary, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Registry == nil || len(o.Registry.Contexts) == 0 {
		return nil, errors.New("the registry offers no contexts: check the registry location")
	}
	contexts := o.Registry.Contexts
	man := ws.Manifest()
	installed := installedAliases(man, contexts)

	flagged, err := flagSelection(contexts, o)
	if err != nil {
		return nil, err
	}
	interactive := o.Prompter != nil
	if !interactive && !o.All && len(o.Select) == 0 && len(o.Tags) == 0 {
		return nil, &UsageError{Msg: "no terminal to ask which contexts to install: choose with --select NAME,..., --tags TAG,... or --all (contexts: " +
			escapedList(o.Registry.Names()) + ")"}
	}
	denied, unsure := checkWanted(ctx, access, contexts, installed, flagged, o)
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	if interactive && len(denied) == len(contexts) {
		return nil, noneReadable(contexts, denied, unsure, o)
	}
	sum := &Summary{}
	selected, err := choose(contexts, installed, flagged, denied, sum, o)
	if err != nil {
		return nil, err
	}
	specs := plan(man, contexts, installed, selected, interactive, sum, o)
	sum, err = apply(ctx, ws, man, specs, sum, o)
	if err == nil && !o.FromManifest && len(specs) == 0 && len(sum.Removed) == 0 && len(sum.Unavailable) == 0 {
		notePrivate(ctx, ws, installed, o)
	}
	return sum, err
}

// notePrivate tells the user who named the registry and changed nothing
// that the packages the manifest already names with a git host on the
// private network are not allowed by this setup (it allows only what it
// adds: review18c), and what to run.
func notePrivate(ctx context.Context, ws Workspace, installed map[int]string, o Options) {
	var aliases []string
	for _, a := range installed {
		if !slices.Contains(aliases, a) {
			aliases = append(aliases, a)
		}
	}
	sort.Strings(aliases)
	need := ws.PrivateNotAllowed(ctx, aliases)
	if len(need) == 0 {
		return
	}
	cmd := "ctx install"
	for _, a := range need {
		cmd += " --allow-outside " + a
	}
	fmt.Fprintf(o.Log, "note: the manifest already names %s, on your private network and not allowed here (setup allows only what it adds): if you trust %s, run `%s`\n",
		wording.List(need, "and"), wording.Plural(len(need), "it", "them"), cmd)
}

// noneReadable is the error of a setup at a terminal none of whose
// contexts can be offered (none installed, none readable), after a line
// per context saying why: credentials when every server answered no
// (definiteDenial), else the network, since some could not be asked.
func noneReadable(contexts []registry.Entry, denied map[int]string, unsure int, o Options) error {
	for i, c := range contexts {
		fmt.Fprintf(o.Log, "%s: cannot read %s: %s\n", safetext.Escape(c.Name), safetext.Escape(c.Source()), safetext.Text(denied[i]))
	}
	if unsure > 0 {
		return fmt.Errorf("none of the registry's contexts can be offered: %d of %d could not be checked (why is above): check your network connection and proxy, then run ctx setup again",
			unsure, len(contexts))
	}
	return errors.New("none of the registry's contexts can be read with your credentials (why is above): check your git credentials (or CTX_GIT_TOKEN with CTX_GIT_TOKEN_HOSTS) and try again")
}

// checkWanted checks access to the contexts not installed: all of them at
// a terminal (to show what is reachable), else only those about to be
// installed. It returns why each one that cannot be read cannot, and how
// many of those are failures to ask rather than the server's no
// (definiteDenial).
func checkWanted(ctx context.Context, access AccessChecker, contexts []registry.Entry, installed map[int]string, flagged map[int]bool, o Options) (map[int]string, int) {
	interactive := o.Prompter != nil
	var toCheck []int
	for i := range contexts {
		if _, ok := installed[i]; ok {
			continue
		}
		if interactive || flagged[i] {
			toCheck = append(toCheck, i)
		}
	}
	var stop func(bool, string)
	if interactive && len(toCheck) > 0 {
		n := countRepos(contexts, toCheck)
		stop = o.Prompter.Spinner(fmt.Sprintf("Checking access to %d %s", n, wording.Plural(n, "repository", "repositories")))
	} else if len(toCheck) > 0 {
		n := countRepos(contexts, toCheck)
		fmt.Fprintf(o.Log, "checking access to %d %s\n", n, wording.Plural(n, "repository", "repositories"))
	}
	denied := map[int]string{}
	unsure := 0
	for i, err := range checkAccess(ctx, access, contexts, toCheck, o) {
		denied[i] = accessReason(err)
		if !definiteDenial(err) {
			unsure++
		}
	}
	if stop != nil {
		n := len(denied)
		if n == 0 {
			stop(true, "All repositories are reachable")
		} else {
			// Not a check mark: the check found contexts it cannot read.
			stop(false, fmt.Sprintf("%d of %d contexts cannot be read (why is shown beside each)", n, len(toCheck)))
		}
	}
	return denied, unsure
}

// choose returns the contexts the project should have: the user's pick at
// a terminal (installed and flagged ones pre-selected), else the flagged
// ones. A flagged context that cannot be read goes to sum.Unavailable.
func choose(contexts []registry.Entry, installed map[int]string, flagged map[int]bool, denied map[int]string, sum *Summary, o Options) (map[int]bool, error) {
	selected := map[int]bool{}
	if o.Prompter == nil {
		for i := range contexts {
			if !flagged[i] {
				continue
			}
			if denied[i] != "" {
				sum.Unavailable = append(sum.Unavailable, Unavailable{Name: contexts[i].Name, Repo: contexts[i].Source(), Reason: denied[i]})
				continue
			}
			selected[i] = true
		}
		return selected, nil
	}
	choices := make([]Choice, len(contexts))
	var pre []int
	for i, c := range contexts {
		_, inst := installed[i]
		// A registry is someone else's text: the prompt shows it escaped.
		choices[i] = Choice{Name: safetext.Escape(c.Name), Description: safetext.Escape(c.Description),
			Tags: escapeEach(c.Tags), Installed: inst, Disabled: safetext.Text(denied[i])}
		if (inst || flagged[i]) && denied[i] == "" {
			pre = append(pre, i)
		}
		if flagged[i] && denied[i] != "" {
			sum.Unavailable = append(sum.Unavailable, Unavailable{Name: c.Name, Repo: c.Source(), Reason: denied[i]})
		}
	}
	picked, err := o.Prompter.MultiSelect("Which contexts should this project have?", choices, pre)
	if err != nil {
		return nil, err
	}
	for _, i := range picked {
		if i < 0 || i >= len(contexts) {
			return nil, fmt.Errorf("prompter returned choice %d of %d", i, len(contexts))
		}
		if denied[i] != "" {
			return nil, fmt.Errorf("%s cannot be selected: %s", safetext.Quote(contexts[i].Name), denied[i])
		}
		selected[i] = true
	}
	return selected, nil
}

// plan returns the packages to add (the selected contexts not installed)
// and fills in sum.Added, and at a terminal sum.Removed: the installed
// contexts the user deselected.
func plan(man project.Manifest, contexts []registry.Entry, installed map[int]string, selected map[int]bool, interactive bool, sum *Summary, o Options) []project.PackageSpec {
	taken := map[string]bool{}
	for _, p := range man.Packages {
		taken[naming.AliasKey(p.Alias)] = true
	}
	moved := movedFolders(man, installed)
	var specs []project.PackageSpec
	for i, c := range contexts {
		if _, inst := installed[i]; inst || !selected[i] {
			continue
		}
		if p, ok := moved[c.Key()]; ok {
			// The folder is installed at a ref the registry no longer
			// offers, and none of its refs is named as the package: not
			// a second copy of the same documents.
			fmt.Fprintf(o.Log, "%s not installed: the project has its folder as %s at ref %s, which the registry no longer offers (run `ctx remove %s`, then setup, to take the registry's)\n",
				safetext.Quote(c.Name), p.Alias, safetext.Quote(p.Ref), p.Alias)
			continue
		}
		alias := naming.UniqueAlias(naming.AliasFrom(c.Name), taken)
		spec := SpecOf(c.Context, alias)
		spec.AllowPrivateNetwork = o.AllowPrivate && spec.Kind == project.KindHTTPS
		specs = append(specs, spec)
		sum.Added = append(sum.Added, alias)
	}
	if interactive {
		for i, alias := range installed {
			if !selected[i] {
				sum.Removed = append(sum.Removed, alias)
			}
		}
		sort.Strings(sum.Removed)
	}
	return specs
}

// saveRegistryOf writes o.RegistryLocation as the manifest's registry,
// saying so when it replaces another.
func saveRegistryOf(ws Workspace, man project.Manifest, o Options) error {
	if err := ws.SetRegistry(o.RegistryLocation); err != nil {
		return err
	}
	if man.Registry != "" && man.Registry != o.RegistryLocation {
		arrow := o.Symbols.Arrow
		if arrow == "" {
			arrow = termenv.SymbolsFor(false).Arrow
		}
		fmt.Fprintf(o.Log, "registry: %s %s %s\n", safetext.Clip(man.Registry, 0), arrow, safetext.Clip(o.RegistryLocation, 0))
	}
	return nil
}

// apply asks for confirmation at a terminal (unless o.Yes and nothing is
// removed), then changes
// the project: the registry, the removals, the additions, the index.
func apply(ctx context.Context, ws Workspace, man project.Manifest, specs []project.PackageSpec, sum *Summary, o Options) (*Summary, error) {
	// The user's registry is saved also when the manifest names it
	// already, as theirs (project.Manifest.UsersRegistry).
	saveRegistry := o.RegistryLocation != "" && (o.RegistryLocation != man.Registry || (!o.FromManifest && !man.UsersRegistry()))
	if len(specs) == 0 && len(sum.Removed) == 0 {
		if len(sum.Unavailable) > 0 {
			fmt.Fprintln(o.Log, "Nothing installed: the chosen contexts cannot be read.")
			if saveRegistry && man.Registry != "" {
				fmt.Fprintf(o.Log, "registry not saved: nothing was installed from %s; the manifest keeps %s\n", safetext.Clip(o.RegistryLocation, 0), safetext.Clip(man.Registry, 0))
			}
			return sum, nil
		}
		if man.Registry == "" && len(man.Packages) == 0 {
			// No project yet (or an empty one): choosing nothing
			// creates nothing, as cancelling does.
			fmt.Fprintln(o.Out, "Nothing chosen: nothing changed.")
			return sum, nil
		}
		if saveRegistry {
			if err := saveRegistryOf(ws, man, o); err != nil {
				return nil, err
			}
		}
		fmt.Fprintln(o.Out, "Nothing to change.")
		// An interrupted run left the packages in place and the index
		// behind: this re-run finishes it.
		if len(man.Packages) > 0 && ws.IndexStale() {
			idx, err := ws.Reindex(ctx, indexer.Options{BudgetTokens: man.Index.BudgetTokens})
			if err != nil {
				return sum, fmt.Errorf("index: %w (run `ctx index` to retry)", err)
			}
			sum.Index = idx
		}
		return sum, nil
	}
	if o.Prompter != nil && (!o.Yes || len(sum.Removed) > 0) {
		// A change that removes packages defaults to no: in the list, ←
		// unchecks every installed context, and Enter, Enter would
		// remove them all. It is asked also with --yes (o.Yes), which
		// skips the question of additions only: as apt's -y stops before
		// removing an essential package, and a removal is only ever
		// chosen at a terminal, where the user is to answer.
		ok, err := o.Prompter.Confirm(changeQuestion(sum), len(sum.Removed) == 0)
		if err != nil {
			return nil, err
		}
		if !ok {
			sum.Declined = true
			sum.Added, sum.Removed = nil, nil
			fmt.Fprintln(o.Out, "Nothing changed.")
			return sum, nil
		}
	}
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}

	// From here on the project changes. The registry is saved after the
	// removals and additions, and only when one of them changed the
	// project: a setup whose every choice failed keeps the manifest's.
	if len(sum.Removed) > 0 {
		rep, err := ws.Remove(ctx, sum.Removed, workspace.RemoveOptions{})
		// Interrupted once committed, the report says what was removed:
		// reported, and the registry saved, as for an install below.
		sum.RemoveReport = rep
		if err != nil {
			err = fmt.Errorf("remove %s: %w", strings.Join(sum.Removed, ", "), err)
			if saveRegistry && changedAny(sum.RemoveReport) {
				if serr := saveRegistryOf(ws, man, o); serr != nil {
					return sum, errors.Join(err, serr)
				}
			}
			return sum, err
		}
	}
	if len(specs) > 0 {
		// Transfer progress is the workspace's to show (Options.Progress).
		fmt.Fprintf(o.Log, "installing %d %s\n", len(specs), wording.Plural(len(specs), "package", "packages"))
		rep, err := ws.Add(ctx, specs, workspace.AddOptions{NoAllowOutside: o.FromManifest})
		// Interrupted (Ctrl-C), the report says what landed: it is in the
		// project (manifest and lock agree), reported, and the registry
		// saved with it, so that `ctx setup` goes on from there.
		sum.AddReport = rep
		if err != nil {
			if saveRegistry && changedAny(sum.AddReport, sum.RemoveReport) {
				if serr := saveRegistryOf(ws, man, o); serr != nil {
					return sum, errors.Join(fmt.Errorf("install: %w", err), serr)
				}
			}
			return sum, fmt.Errorf("install: %w", err)
		}
	}
	if saveRegistry {
		if changedAny(sum.AddReport, sum.RemoveReport) {
			if err := saveRegistryOf(ws, man, o); err != nil {
				return sum, err
			}
		} else if man.Registry != "" {
			fmt.Fprintf(o.Log, "registry not saved: nothing was installed from %s; the manifest keeps %s\n", safetext.Clip(o.RegistryLocation, 0), safetext.Clip(man.Registry, 0))
		}
	}
	sum.Index = indexOf(sum.AddReport, sum.RemoveReport)
	if sum.Index == nil {
		idx, err := ws.Reindex(ctx, indexer.Options{BudgetTokens: man.Index.BudgetTokens})
		if err != nil {
			return sum, fmt.Errorf("index: %w (run `ctx index` to retry)", err)
		}
		sum.Index = idx
	}
	return sum, nil
}

// changedAny reports whether a package of the reports is in the project
// as asked (installed, updated, linked, unchanged or removed), not skipped
// or failed.
func changedAny(reps ...*workspace.Report) bool {
	for _, r := range reps {
		if r == nil {
			continue
		}
		for _, p := range r.Packages {
			if p.Action != workspace.Skipped && p.Action != workspace.Failed {
				return true
			}
		}
	}
	return false
}

func indexOf(reps ...*workspace.Report) *indexer.SyncReport {
	var last *indexer.SyncReport
	for _, r := range reps {
		if r != nil && r.Index != nil {
			last = r.Index
		}
	}
	return last
}

// SpecOf is the package spec that installs registry context c as alias:
// the one place a registry context becomes a manifest entry. A git
// context's spec names no kind, as every manifest before kinds.
func SpecOf(c registry.Context, alias string) project.PackageSpec {
	s := project.PackageSpec{Alias: alias, Source: c.Source(), Path: c.Path, Ref: c.Ref}
	if c.KindOf() == registry.KindHTTPSSource {
		s.Kind = project.KindHTTPS
		s.TTL = c.TTL
	}
	return s
}

// installedAliases maps the index of each registry context the manifest
// already has to its alias: the package of the same repository, path and
// ref; else, for a package whose ref was changed since (no context has
// its ref), the context of the same repository and path when the registry
// offers that folder at one ref only, or, when it offers several, the one
// whose name gives the package's alias. A package matches one context at
// most, so its folder is not installed a second time under a new alias.
func installedAliases(man project.Manifest, contexts []registry.Entry) map[int]string {
	refs := map[string]int{}
	byRef := map[string][]int{}
	for i, c := range contexts {
		refs[c.Key()]++
		k := registry.ContextRefKey(c.Source(), c.Path, c.Ref)
		byRef[k] = append(byRef[k], i)
	}
	out := map[int]string{}
	var moved []project.PackageSpec // packages whose ref no context has
	for _, p := range man.Packages {
		if idx, ok := byRef[registry.ContextRefKey(p.Source, p.Path, p.Ref)]; ok {
			for _, i := range idx {
				out[i] = p.Alias
			}
		} else {
			moved = append(moved, p)
		}
	}
	for _, p := range moved {
		key := registry.ContextKey(p.Source, p.Path)
		for i, c := range contexts {
			if _, taken := out[i]; taken || c.Key() != key {
				continue
			}
			if refs[key] == 1 || naming.AliasKey(naming.AliasFrom(c.Name)) == naming.AliasKey(p.Alias) {
				out[i] = p.Alias
				break
			}
		}
	}
	return out
}

// movedFolders maps the folder (registry.ContextKey) of each package that
// matches no registry context (installedAliases) to it.
func movedFolders(man project.Manifest, installed map[int]string) map[string]project.PackageSpec {
	matched := map[string]bool{}
	for _, alias := range installed {
		matched[naming.AliasKey(alias)] = true
	}
	out := map[string]project.PackageSpec{}
	for _, p := range man.Packages {
		if !matched[naming.AliasKey(p.Alias)] && p.Kind != project.KindDir {
			out[registry.ContextKey(p.Source, p.Path)] = p
		}
	}
	return out
}

// flagSelection resolves --select, --tags and --all to context indexes.
func flagSelection(contexts []registry.Entry, o Options) (map[int]bool, error) {
	sel := map[int]bool{}
	var unknown []string
	for _, name := range splitList(o.Select) {
		found := false
		for i, c := range contexts {
			if strings.EqualFold(c.Name, name) {
				sel[i], found = true, true
			}
		}
		if !found {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return nil, &UsageError{Msg: fmt.Sprintf("--select: no context named %s in the registry; valid names: %s",
			hinted(unknown, o.Registry.Names()), escapedList(o.Registry.Names()))}
	}
	var unknownTags []string
	for _, tag := range splitList(o.Tags) {
		found := false
		for i, c := range contexts {
			for _, t := range c.Tags {
				if strings.EqualFold(t, tag) {
					sel[i], found = true, true
				}
			}
		}
		if !found {
			unknownTags = append(unknownTags, tag)
		}
	}
	if len(unknownTags) > 0 {
		return nil, &UsageError{Msg: fmt.Sprintf("--tags: no context is tagged %s; tags in the registry: %s",
			hinted(unknownTags, allTags(contexts)), escapedList(allTags(contexts)))}
	}
	if o.All {
		for i := range contexts {
			sel[i] = true
		}
	}
	return sel, nil
}

func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// escapeEach returns xs, each escaped by safetext.Escape (nil for nil).
func escapeEach(xs []string) []string {
	if xs == nil {
		return nil
	}
	e := make([]string, len(xs))
	for i, x := range xs {
		e[i] = safetext.Escape(x)
	}
	return e
}

// hinted lists the typed names none of known is, each quoted with the
// names it may be a typo of (internal/suggest, as an unknown alias is
// said): `"handbok" (did you mean handbook?)`.
func hinted(typed, known []string) string {
	out := make([]string, len(typed))
	for i, t := range typed {
		out[i] = safetext.Quote(t) + safetext.Escape(suggest.Hint(t, known))
	}
	return strings.Join(out, ", ")
}

// escapedList joins xs with ", ", each escaped by safetext.Escape.
func escapedList(xs []string) string { return strings.Join(escapeEach(xs), ", ") }

func allTags(contexts []registry.Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range contexts {
		for _, t := range c.Tags {
			if !seen[strings.ToLower(t)] {
				seen[strings.ToLower(t)] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"(none)"}
	}
	return out
}

func countRepos(contexts []registry.Entry, idx []int) int {
	seen := map[string]bool{}
	for _, i := range idx {
		seen[naming.RepoKey(contexts[i].Source())] = true
	}
	return len(seen)
}

// accessKey groups the sources that one access check answers for: one
// repository (naming.RepoKey) over one transport (a URL's scheme, ssh for
// git's scp-like form), since the same repository can be readable over
// https and not over ssh, or the other way round.
func accessKey(source string) string {
	transport := "file"
	switch {
	case naming.IsSCPLike(source):
		transport = "ssh"
	case naming.HasScheme(source):
		scheme, _, _ := strings.Cut(source, "://")
		transport = strings.ToLower(scheme)
	}
	return transport + " " + naming.RepoKey(source)
}

// checkAccess checks each distinct repository once, in parallel, and returns
// for each context index that cannot be read the check's error.
func checkAccess(ctx context.Context, access AccessChecker, contexts []registry.Entry, idx []int, o Options) map[int]error {
	byRepo := map[string][]int{}
	var repos []string
	for _, i := range idx {
		key := accessKey(contexts[i].Source())
		if _, ok := byRepo[key]; !ok {
			repos = append(repos, key)
		}
		byRepo[key] = append(byRepo[key], i)
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs
	}
	timeout := o.CheckTimeout
	if timeout <= 0 {
		timeout = DefaultCheckTimeout
	}
	https := o.HTTPSAccess
	if https == nil {
		https = HTTPAccess{AllowPrivate: o.AllowPrivate}
	}
	reasons := make([]error, len(repos))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	for n, key := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			c := contexts[byRepo[key][0]]
			check := access
			if c.KindOf() == registry.KindHTTPSSource {
				check = https
			}
			if err := check.CheckAccess(cctx, c.Source()); err != nil {
				reasons[n] = err
			}
		}()
	}
	wg.Wait()
	out := map[int]error{}
	for n, key := range repos {
		if reasons[n] == nil {
			continue
		}
		for _, i := range byRepo[key] {
			out[i] = reasons[n]
		}
	}
	return out
}

// definiteDenial reports whether a failed access check is the server's
// answer that the source cannot be read (no such repository or page,
// credentials wanted or refused, a path or ref that is not there, an
// address or scheme ctx refuses), not a failure to ask (offline, a refused
// connection, a timeout, an error ctx cannot classify).
func definiteDenial(err error) bool {
	switch webfetch.KindOf(err) {
	case webfetch.KindNotFound, webfetch.KindAuth, webfetch.KindPrivate, webfetch.KindScheme:
		return true
	}
	switch gitengine.KindOf(err) {
	case gitengine.KindNotFound, gitengine.KindAuthRequired, gitengine.KindAuthFailed,
		gitengine.KindRefNotFound, gitengine.KindPathNotFound, gitengine.KindCommitNotFound:
		return true
	}
	return false
}

func accessReason(err error) string {
	var we *webfetch.Error
	if errors.As(err, &we) && we.Kind == webfetch.KindPrivate {
		// setup's own flag, not add's (webfetch's hint)
		return we.Msg + " (if the source is meant to be on a private network, run ctx setup with --allow-private-network)"
	}
	if errors.As(err, &we) && we.Kind == webfetch.KindAuth {
		// webfetch's hint is to set the source's "tokenEnv", which a
		// registry may not give: the user adds such a source.
		return we.Msg + " (the server wants credentials, and a registry cannot name a token: add it yourself with `ctx add " + we.URL + " --token-env VAR`, VAR an environment variable holding the token)"
	}
	var ge *gitengine.Error
	if errors.As(err, &ge) {
		if ge.Hint != "" {
			return ge.Kind.String() + " (" + ge.Hint + ")"
		}
		return ge.Kind.String()
	}
	return err.Error()
}

func changeQuestion(s *Summary) string {
	var parts []string
	if len(s.Added) > 0 {
		parts = append(parts, "install "+someOf(s.Added))
	}
	if len(s.Removed) > 0 {
		parts = append(parts, "remove "+someOf(s.Removed))
	}
	q := strings.Join(parts, " and ")
	return strings.ToUpper(q[:1]) + q[1:] + "?"
}

// questionNames is how many aliases a confirmation names before "and N
// more": → in the list checks every context, and a question of 500 names
// hid the "(Y/n)" a screen below.
const questionNames = 5

// someOf is aliases for a question: all of them when few, else their
// number and the first questionNames.
func someOf(aliases []string) string {
	if len(aliases) <= questionNames+1 {
		return strings.Join(aliases, ", ")
	}
	return fmt.Sprintf("%s (%s and %d more)", wording.Count(len(aliases), "package", "packages"),
		strings.Join(aliases[:questionNames], ", "), len(aliases)-questionNames)
}
