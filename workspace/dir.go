package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/netguard"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/webdoc"
)

// A dir source (project.KindDir) is a local file or folder indexed and
// served in place: Add checks that it exists and records its spec (through
// a journal, as every manifest change), and nothing else ever writes to it.
// It has no lock entry, no packages/<alias> folder and no state: install,
// update, outdated, verify, status and the dirty guard pass over it, and
// Remove only forgets its spec.

// isDir reports whether s is a dir spec.
func isDir(s *project.PackageSpec) bool { return s != nil && s.KindOf() == project.KindDir }

// forges are the hosts whose /owner/repo URLs are git repositories.
var forges = map[string]bool{"github.com": true, "gitlab.com": true, "bitbucket.org": true}

// InferKind says which kind of source source is, for a spec that names
// none (project.KindGit, KindDir or KindHTTPS). A local path (relative to
// the project root) is git when it is a git repository (it has .git, or is
// a bare repository), dir when it is any other existing file or folder, and
// an error when it does not exist. A URL is git when it is file://, ssh://,
// git://, scp-like, ends in .git, or is a github.com, gitlab.com or
// bitbucket.org /owner/repo; https when it is an http(s) URL of a document
// or archive (.md, .markdown, .txt, .html, .htm, llms.txt, .tar.gz, .tgz,
// .zip); for any other http(s) URL eng asks the server for git's ref
// advertisement: git when it answers one (or asks for credentials), https
// when it does not speak git. eng may be nil when source is local.
func (w *Workspace) InferKind(ctx context.Context, eng *gitengine.Engine, source string) (string, error) {
	if naming.IsLocalPath(source) {
		if err := w.checkLocal(source); err != nil {
			return "", err
		}
		p := w.proj.SourcePath(source)
		if isGitRepo(p) {
			return project.KindGit, nil
		}
		return project.KindDir, nil
	}
	if naming.IsSCPLike(source) {
		return project.KindGit, nil
	}
	u, err := url.Parse(source)
	if err != nil {
		return "", fmt.Errorf("%s is not a URL: %w", safetext.Quote(source), err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return project.KindGit, nil // file, ssh, git and the rest are git's
	}
	p := strings.ToLower(strings.TrimRight(u.Path, "/"))
	if strings.HasSuffix(p, ".git") {
		return project.KindGit, nil
	}
	if forges[strings.ToLower(u.Hostname())] && strings.Count(p, "/") == 2 {
		return project.KindGit, nil
	}
	if DocumentURL(source) {
		return project.KindHTTPS, nil
	}
	if eng == nil {
		eng = w.engine()
	}
	// The probe is a network step as a fetch is: under the same total
	// bound (fetchBound), so that a server trickling its answer cannot
	// hold `ctx add` (review19b).
	bctx, done := w.fetchBound(ctx, project.KindGit)
	defer done()
	err = eng.CheckAccess(bctx, source)
	if err != nil && netrate.Total(bctx) != nil {
		return "", w.overBound(bctx, err)
	}
	switch gitengine.KindOf(err) {
	case gitengine.KindAuthRequired, gitengine.KindAuthFailed:
		return project.KindGit, nil
	case gitengine.KindPrivate:
		return "", err // a guarded probe: neither kind may reach it
	default:
		if err == nil {
			return project.KindGit, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr
		}
		return project.KindHTTPS, nil
	}
}

// DocumentURL reports whether source is an http(s) URL of a document or
// an archive by its name (.md, .markdown, .txt, .html, .htm, llms.txt,
// .tar.gz, .tgz, .zip): kind https without asking its server (InferKind's
// rule), a source that has no ref.
func DocumentURL(source string) bool {
	u, err := url.Parse(source)
	if err != nil || !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return false
	}
	p := strings.ToLower(strings.TrimRight(u.Path, "/"))
	return webdoc.Detect(source, "") != webdoc.FormDocument || webdoc.Ext(p) != ""
}

// isGitRepo reports whether dir is a git repository: a work tree with .git
// (a folder, or a file pointing to one), or a bare repository (HEAD, objects/
// and refs/).
func isGitRepo(dir string) bool {
	if exists(filepath.Join(dir, ".git")) {
		return true
	}
	for _, name := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.IsDir() {
			return false
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil && fi.Mode().IsRegular()
}

// NotRepositoryError is add's error for a local path given as a git
// source (--kind git) that is an existing file or folder but no git
// repository (isGitRepo, InferKind's rule). Sub, when not "", is the
// path from the repository that holds it, so that the repository and
// --path can be named.
type NotRepositoryError struct {
	Source string // as given (cmd/ctx add sets what was typed)
	File   bool   // a file, not a folder
	Sub    string // slash path inside the enclosing repository, or ""
}

func (e *NotRepositoryError) Error() string {
	what := "a folder"
	if e.File {
		what = "a file"
	}
	msg := fmt.Sprintf("%s is %s, not a git repository (--kind git)", safetext.Quote(e.Source), what)
	src := filepath.ToSlash(filepath.Clean(e.Source))
	if repo, ok := strings.CutSuffix(src, "/"+e.Sub); ok && e.Sub != "" && repo != "" {
		if e.File {
			add := "ctx add " + safetext.ShellJoin([]string{repo}) + " (the whole repository)"
			if dir := path.Dir(e.Sub); dir != "." {
				add = "ctx add " + safetext.ShellJoin([]string{repo}) + " --path " + safetext.ShellJoin([]string{dir}) + " (its folder)"
			}
			return fmt.Sprintf("%s: it is in the repository %s; a package is a folder of it: %s, or drop --kind git to add the file itself, read in place",
				msg, safetext.Quote(repo), add)
		}
		return fmt.Sprintf("%s: it is a folder of the repository %s: ctx add %s --path %s, or drop --kind git to add the folder itself, read in place",
			msg, safetext.Quote(repo), safetext.ShellJoin([]string{repo}), safetext.ShellJoin([]string{e.Sub}))
	}
	return msg + ": name a repository (a folder with .git, or a bare one), or drop --kind git to add it as a dir source, read in place"
}

// checkLocalRepo is nil when the local path source (relative to the
// root) is a git repository, or does not exist (then the fetch says so);
// else a *NotRepositoryError, naming the repository that holds it if any.
func (w *Workspace) checkLocalRepo(source string) error {
	p := w.proj.SourcePath(source)
	fi, err := os.Stat(p)
	if err != nil || isGitRepo(p) {
		return nil
	}
	e := &NotRepositoryError{Source: source, File: !fi.IsDir()}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if isGitRepo(d) {
			if rel, ok := naming.RelIn(d, p); ok {
				e.Sub = filepath.ToSlash(rel)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return e
}

// checkDirSource reports whether a dir spec's file or folder exists, with
// an error saying what to do when it does not.
func (w *Workspace) checkDirSource(s *project.PackageSpec) error { return w.checkLocal(s.Source) }

// checkLocal reports whether the local path source (relative to the
// project root, or absolute) exists and can be read: the one check of
// `ctx add` for a path, whatever its kind turns out to be.
func (w *Workspace) checkLocal(source string) error {
	_, err := os.Stat(w.proj.SourcePath(source))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &MissingSourceError{Source: source, From: w.root}
	case err != nil:
		return fmt.Errorf("%s cannot be read: %w", safetext.Quote(source), pathErr(err))
	}
	return nil
}

// MissingSourceError is a local source path that does not exist. Its
// message is add's advice; a caller whose sources come from elsewhere (a
// registry) words its own from Source.
type MissingSourceError struct {
	Source string // as given
	// From is the folder Source is relative to: the project root, or
	// where the user typed it (cmd/ctx add sets both to what was typed).
	From string
}

func (e *MissingSourceError) Error() string {
	return fmt.Sprintf("%s does not exist: create it, or give the path of an existing file, folder or repository (relative to %s, or absolute), or a URL", safetext.Quote(e.Source), e.From)
}

// pathErr is err without the path a *fs.PathError repeats (it may be long:
// the caller quotes the path, bounded).
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// placeDirSource decides, at `ctx add`, where dir spec s is recorded, by
// project.CheckSource (the one containment rule): a source that leads
// inside the project goes to the committed manifest, with the allowance
// to serve its files git does not track (project.InsideAllowFor) for the
// user who typed it, returned to be recorded with it; one outside it is
// the user's own, so it is marked Local (.context/context.local.json,
// never committed: a clone cannot name one), and so is one of which git
// tracks nothing that a .gitignore ignores (a clone never has it; one git
// does not track yet, new files, is committed with the allowance). A
// filesystem root or the home folder is refused, and so is a path inside
// the project that is a symbolic link (or goes through one) to outside
// it: ctx never follows a link out of the project. When s is made Local,
// why says so ("is outside the project"), for Add to tell once the spec
// is recorded (not at a dry run, nor when the add fails).
func (w *Workspace) placeDirSource(s *project.PackageSpec) (allow *project.InsideAllow, why string, err error) {
	local := *s
	local.Local = true
	real, err := w.proj.CheckSource(&w.manifest, local)
	if err != nil {
		return nil, "", err
	}
	s.Local = false
	if _, err := w.proj.CheckSource(nil, *s); err == nil {
		if want, ok := w.proj.InsideAllowFor(*s); ok && !w.manifest.AllowsInside(want) {
			return &want, "", nil
		}
		return nil, "", nil
	} else if errors.Is(err, project.ErrUntracked) {
		// New files (not ignored) are most often about to be committed:
		// the committed manifest, allowed for this user until git tracks
		// them. What a .gitignore ignores stays the user's own. Where it
		// is recorded is a convenience, not the trust rule (checkShared).
		want, ok := w.proj.InsideAllowFor(*s)
		if ok && !w.gitIgnored(want.Path, real) {
			return &want, "", nil
		}
		s.Local = true
		return nil, "is ignored by git (a clone never has it)", nil
	} else if !errors.Is(err, project.ErrOutside) {
		return nil, "", err
	}
	if typed := w.proj.SourcePath(s.Source); naming.Within(w.root, typed) {
		return nil, "", fmt.Errorf("%s is a symbolic link (or goes through one) to %s, outside the project: ctx does not follow a link out of the project; to use it as your own source, add %s itself (it is then kept in %s, not committed)",
			safetext.Quote(s.Source), safetext.Quote(real), safetext.Quote(real), project.Rel(project.LocalName))
	}
	s.Local = true
	return nil, "is outside the project", nil
}

// gitIgnored reports whether the project's .gitignore files, from its root
// down, ignore rel (a slash path from the resolved project root), which
// leads to real: where `ctx add` records a dir source git does not track.
func (w *Workspace) gitIgnored(rel, real string) bool {
	root, err := filepath.EvalSymlinks(w.root)
	if err != nil {
		root = w.root
	}
	fi, err := os.Stat(real)
	return err == nil && markdown.IgnoredPath(os.DirFS(root), rel, fi.IsDir())
}

// placeGitSource decides, at `ctx add`, whether git spec s, when its
// source is a repository on this machine (a path or a file:// URL), leads
// outside the project by project.CheckSource (the one containment rule).
// One that does is the user's own doing (they typed it): the spec is
// committed as any other, and where it leads is returned, to be allowed in
// .context/context.local.json with it (journal.AddAllow; a clone of the
// project names it but is refused it until its user allows it too). ""
// when no allowance is needed. Add says so once it is recorded.
func (w *Workspace) placeGitSource(s project.PackageSpec) (string, error) {
	_, err := w.proj.CheckSource(&w.manifest, s)
	if err == nil {
		return "", nil
	}
	if !errors.Is(err, project.ErrOutside) {
		return "", err
	}
	s.Local = true
	return w.proj.CheckSource(nil, s)
}

// AllowOutside records, in .context/context.local.json (git-ignored, never
// committed), that the manifest's packages named by aliases may lead
// outside the project: each must be a source on this machine (a dir
// source, or a git repository named by a path or a file:// URL) that
// project.CheckSource refuses as outside, where it leads is then allowed;
// or an https source that asks for a token from the user's environment or
// for the private network (project.ErrNotAllowed), which is then allowed
// for its origin only (project.WebAllowFor); or a git source on the
// network, whose origin may then be on the private network
// (project.GitPrivateAllow). Again is no error. An alias
// that is neither is an error, and nothing is recorded. With dryRun
// (install --dry-run) the allowances are made in memory only, for the
// plan that follows, and each note says it would be allowed: nothing is
// written.
func (w *Workspace) AllowOutside(aliases []string, dryRun bool) error {
	allowed := "is allowed in"
	if dryRun {
		allowed = "would be allowed in"
	}
	m := w.Manifest()
	m.Allow = append([]string(nil), m.Allow...)
	m.AllowWeb = append([]project.WebAllow(nil), m.AllowWeb...)
	m.AllowInside = append([]project.InsideAllow(nil), m.AllowInside...)
	var probs, unknown, notes []string // notes: said only once all is allowed
	for _, a := range aliases {
		s, ok := m.Spec(a)
		if !ok {
			unknown = append(unknown, a)
			continue
		}
		al, err := allowanceFor(w.proj, s)
		if err != nil {
			probs = append(probs, fmt.Sprintf("--allow-outside %s: %v", safetext.Quote(a), err))
			continue
		}
		al.addTo(&m)
		switch {
		case al.inside != nil:
			what := "its files git does not track"
			if al.inside.Ref != "" {
				what = "its ref " + safetext.Quote(al.inside.Ref)
			}
			notes = append(notes, fmt.Sprintf("%s: %s may serve %s: %s %s (git-ignored, not committed)", a, safetext.Quote(s.Source), what, strings.TrimPrefix(allowed, "is "), project.Rel(project.LocalName)))
		case al.web != nil:
			notes = append(notes, fmt.Sprintf("%s: %s at %s %s %s (git-ignored, not committed)", a, al.web.What(), safetext.Quote(al.web.Origin), allowed, project.Rel(project.LocalName)))
		default:
			notes = append(notes, fmt.Sprintf("%s: %s %s %s (git-ignored, not committed)", a, safetext.Quote(al.path), allowed, project.Rel(project.LocalName)))
		}
	}
	if len(unknown) > 0 {
		// A typed alias that is not there is a bad argument (exit 2), said
		// as update and remove say it, with the names it may be a typo of.
		var known []string
		for _, s := range m.Packages {
			known = append(known, s.Alias)
		}
		err := fmt.Errorf("--allow-outside: %w", unknownPackages(unknown, known, project.Rel(project.ManifestName)))
		if len(probs) > 0 {
			err = errors.Join(err, errors.New(strings.Join(probs, "\n")))
		}
		return err
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "\n"))
	}
	if dryRun {
		w.manifest = m // Manifest made m a copy of its own
		w.allowedNotes(notes)
		return nil
	}
	if err := w.writeManifest(&m); err != nil {
		return err
	}
	w.allowedNotes(notes)
	return nil
}

// allowedNotes says what AllowOutside allowed, once it is (a refused
// alias among them allows none: nothing is said to be allowed).
func (w *Workspace) allowedNotes(notes []string) {
	for _, n := range notes {
		w.notice("%s", n)
	}
}

// allowance is what AllowOutside records for one package of the
// manifest (allowanceFor): one of inside, web or path.
type allowance struct {
	inside *project.InsideAllow // project.InsideAllowFor's
	web    *project.WebAllow    // project.GitPrivateAllow's or project.WebAllowFor's
	// gitNet: web is a network git source's (project.GitPrivateAllow),
	// which needs the allowance only when its host is on the private network.
	gitNet bool
	path   string // where a local source outside the project leads
}

func (a allowance) addTo(m *project.Manifest) {
	switch {
	case a.inside != nil:
		m.AddAllowInside(*a.inside)
	case a.web != nil:
		m.AddAllowWeb(*a.web)
	default:
		m.AddAllow(a.path)
	}
}

func (a allowance) allowedBy(m *project.Manifest) bool {
	switch {
	case a.inside != nil:
		return m.AllowsInside(*a.inside)
	case a.web != nil:
		return m.AllowsWeb(*a.web)
	}
	return m.Allows(a.path)
}

// allowanceFor is what --allow-outside records for the manifest's spec s
// (AllowOutside, the one rule of it): an allowance to read, inside the
// project, what git does not share; the private network (or a token) for
// a committed git or https source's origin; or where a committed local
// source outside the project leads. An error says why there is nothing
// to allow.
func allowanceFor(p project.Project, s project.PackageSpec) (allowance, error) {
	if want, ok := p.InsideAllowFor(s); ok {
		return allowance{inside: &want}, nil
	}
	_, err := p.CheckSource(nil, s)
	if want, ok := project.GitPrivateAllow(s); ok && err == nil && !s.Local {
		return allowance{web: &want, gitNet: true}, nil
	}
	if errors.Is(err, project.ErrNotAllowed) {
		want, _ := project.WebAllowFor(s)
		return allowance{web: &want}, nil
	}
	if !errors.Is(err, project.ErrOutside) {
		return allowance{}, fmt.Errorf("%s is not a committed local source outside the project or holding what git does not share, a committed git source on the network, nor a committed https source with tokenEnv or allowPrivateNetwork: there is nothing to allow", safetext.Quote(s.Source))
	}
	s.Local = true
	real, err := p.CheckSource(nil, s)
	if err != nil {
		return allowance{}, err
	}
	return allowance{path: real}, nil
}

// Unallowed lists, for completion, the packages of p's manifest m (as
// ReadManifest reads it, the user's allowances merged) that need an
// allowance (allowanceFor) the user has not given: those `ctx install
// --allow-outside` makes sense for. A network git source counts only when
// its host is a private address as written (localhost, 10.0.0.1): a name
// is not resolved here. It reads; it opens no Workspace (which may
// finish an interrupted change), as a shell's completion must not write.
func Unallowed(p project.Project, m *project.Manifest) []string {
	var out []string
	for _, s := range m.Packages {
		if s.Local {
			continue // the user's own: nothing to allow
		}
		al, err := allowanceFor(p, s)
		if err != nil || al.allowedBy(m) || (al.gitNet && !privateLiteral(al.web.Origin)) {
			continue
		}
		out = append(out, s.Alias)
	}
	return out
}

// privateLiteral says whether origin's host is, as written, on the
// private network (netguard.Classify): "localhost" or such an address.
func privateLiteral(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && netguard.Classify(a) != ""
}

// checkLive warns about a dir spec that is missing (then there is nothing
// to index until it is back): at install, index and search
// (warnMissingDirs). One that is refused (project.Refused) is reported by
// Install and ctx index.
func (w *Workspace) checkLive(s *project.PackageSpec) {
	err := w.checkDirSource(s)
	var missing *MissingSourceError
	if errors.As(err, &missing) {
		// add's advice (give another path) is not for a spec already there.
		err = missingDirAdvice(w.proj, s, missing.Source)
	}
	if err != nil {
		w.log("warning: %s: %v", s.Alias, err)
	}
}

// missingDirAdvice is the warning for dir spec s whose folder (source)
// does not exist, with advice that fits where it was: inside the project
// (a branch without it, a rename) it can be restored; outside it, in the
// committed manifest, it is most often another machine's path, which ctx
// would not read here even if it existed (project.CheckSource), so it is
// removed, or kept in its user's own local file; outside it and of this
// machine only, it most often moved. The path does not exist, so no link
// of its own can lead elsewhere: inside or outside is said of the path.
func missingDirAdvice(p project.Project, s *project.PackageSpec, source string) error {
	q := safetext.Quote(source)
	if _, in := naming.RelIn(p.Root(), p.SourcePath(source)); in {
		return fmt.Errorf("%s does not exist: a dir source: restore it, or `ctx remove %s`; nothing of it is indexed", q, s.Alias)
	}
	if !s.Local {
		return fmt.Errorf("%s does not exist on this machine: a dir source outside the project, in the committed %s (another machine's path?): to drop it, `ctx remove %s` and commit; whoever uses it can keep it in their own %s instead (`ctx add PATH` there); nothing of it is indexed",
			q, project.Rel(project.ManifestName), s.Alias, project.Rel(project.LocalName))
	}
	return fmt.Errorf("%s does not exist: a dir source outside the project, of this machine only (%s): if it moved, `ctx remove %s`, then `ctx add NEW-PATH`; else mount or restore it, or `ctx remove %s`; nothing of it is indexed",
		q, project.Rel(project.LocalName), s.Alias, s.Alias)
}

// warnMissingDirs is checkLive for each dir source of the manifest: ctx
// index and the search's freshness check say, each time, that one is gone
// (project.Installed leaves it out, so the index alone would not).
func (w *Workspace) warnMissingDirs() {
	for i := range w.manifest.Packages {
		if s := &w.manifest.Packages[i]; isDir(s) {
			w.checkLive(s)
		}
	}
}

// dirAlias is the alias Add gives a dir spec without one: DefaultAlias of
// the path, without the extension when it names a file ("AGENTS.md" →
// "agents").
func (w *Workspace) dirAlias(source string) string {
	if fi, err := os.Stat(w.proj.SourcePath(source)); err == nil && fi.Mode().IsRegular() {
		source = strings.TrimSuffix(source, filepath.Ext(source))
	}
	return DefaultAlias(source, "")
}

// cleanDirSource writes a dir source's path the one way the manifest keeps
// it: cleaned ("./docs/" → "docs"), slash-separated when relative.
func cleanDirSource(source string) string {
	if filepath.IsAbs(source) {
		return filepath.Clean(source)
	}
	return filepath.ToSlash(filepath.Clean(source))
}

// ProjectDocs returns a dir spec for each of the usual places of a
// project's own docs that exists in root, in this order: docs/, AGENTS.md,
// CLAUDE.md, README.md, adr/ and docs/adr/ (this one only when docs/ is not
// there, since docs/ holds it). Each alias is naming.AliasFrom of the path
// without its extension ("docs", "agents", "readme", "docs-adr").
func ProjectDocs(root string) []project.PackageSpec {
	var out []project.PackageSpec
	found := map[string]bool{}
	for _, c := range []struct {
		name string
		dir  bool
	}{{"docs", true}, {"AGENTS.md", false}, {"CLAUDE.md", false}, {"README.md", false}, {"adr", true}, {"docs/adr", true}} {
		if c.name == "docs/adr" && found["docs"] {
			continue
		}
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(c.name)))
		if err != nil || fi.IsDir() != c.dir || (!c.dir && !fi.Mode().IsRegular()) {
			continue
		}
		found[c.name] = true
		alias := naming.AliasFrom(strings.TrimSuffix(c.name, filepath.Ext(c.name)))
		out = append(out, project.PackageSpec{Alias: alias, Kind: project.KindDir, Source: c.name})
	}
	return out
}
