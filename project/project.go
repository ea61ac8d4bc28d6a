// Package project reads a ctx project: it owns the layout of .context/
// (every name ctx keeps there), finding and parsing the manifest
// (context.config.json) and the lock (context.lock), and the one rule of
// which lock entries count as installed packages. It never writes:
// workspace adds the changes and the project lock on top; mcpserver and
// cmd/ctx read through it.
//
// Layout of .context/: context.config.json and context.lock (committed);
// context.local.json (the user's own sources, git-ignored);
// packages/<alias>/ (the files), .state/<alias>.json (per file: blob id,
// size, mode, mtime, for the dirty check), .tmp/ (staging and journals),
// backup/ (what --force saved), index/ and INDEX.md (the indexer's), and
// .lock (the project lock, holding the holder's pid). .gitignore lists
// everything generated.
package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/source/kinds"
)

// Names of things inside a project.
const (
	DirName       = ".context"            // the project's ctx directory, at its root
	ManifestName  = "context.config.json" // committed: the project's intent
	LocalName     = "context.local.json"  // git-ignored: the user's own sources (dir sources outside the project) and allowances
	LockName      = "context.lock"        // committed: what is installed, pinned
	PackagesDir   = "packages"            // packages/<alias>/: a package's files
	StateDir      = ".state"              // .state/<alias>.json: what ctx installed, for the dirty check
	TmpDir        = ".tmp"                // staging folders and journals
	BackupDir     = "backup"              // what --force saved
	IndexDir      = "index"               // the search index
	IndexName     = "INDEX.md"            // the overview the indexer writes
	ProjectLock   = ".lock"               // the project lock file (holder's pid inside)
	GitignoreName = ".gitignore"          // written by ctx: everything generated
	// PreviousLockName, in StateDir, is the lock ctx last replaced, for
	// `ctx changes` (not an alias's state: no alias starts with "_").
	PreviousLockName = "_previous-lock.json"
)

// Gitignore is what ctx writes to .context/.gitignore: everything but the
// manifest and the lock is generated. The .*.tmp lines are the temps of
// the atomic writes (internal/atomicfile) of ctx's own files here
// (context.*, INDEX.md, .gitignore) that a kill left before their rename:
// workspace.Open removes them once stale (its sweptHere), and until then
// git status does not show them; a user's own .notes.1.tmp stays visible
// (rv-polish22).
const Gitignore = `# Written by ctx. Everything here is generated except context.config.json
# and context.lock, which you commit (context.local.json is yours alone).
/packages/
/index/
/INDEX.md
/.state/
/.tmp/
/backup/
/.lock
/.context.*.tmp
/.INDEX.md.*.tmp
/..gitignore.*.tmp
/context.local.json
`

// Owned returns every name ctx keeps directly in .context/.
func Owned() []string {
	return []string{ManifestName, LocalName, LockName, PackagesDir, StateDir, TmpDir, BackupDir, IndexDir, IndexName, ProjectLock, GitignoreName}
}

// Rel is how a name inside .context/ is shown in messages: relative to the
// project root (".context/context.lock").
func Rel(name string) string { return DirName + "/" + name }

// ErrNoProject: the directory has no .context/context.config.json.
var ErrNoProject = errors.New("no ctx project here")

// Project is a project directory, read-only. The zero value is not usable;
// get one with At.
type Project struct {
	root string
	home string // the user's home folder (WithHome), refused as a dir source; "" = not known
}

// WithHome returns p knowing the user's home folder, which CheckDirSource
// refuses as a dir source (cmd/ctx reads it from the environment; "" =
// not known, only filesystem roots are refused by name).
func (p Project) WithHome(dir string) Project {
	p.home = dir
	return p
}

// At returns the project rooted at dir (made absolute). It does no I/O
// beyond what filepath.Abs needs.
func At(dir string) (Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Project{}, err
	}
	return Project{root: abs}, nil
}

// Root is the project directory; Dir is its .context/.
func (p Project) Root() string { return p.root }
func (p Project) Dir() string  { return filepath.Join(p.root, DirName) }

// Path joins elem onto .context/.
func (p Project) Path(elem ...string) string {
	return filepath.Join(append([]string{p.root, DirName}, elem...)...)
}

// PackageDir is packages/<alias>/.
func (p Project) PackageDir(alias string) string { return p.Path(PackagesDir, alias) }

// StatePath is the file where workspace records what it installed of
// alias: .state/<alias>.json.
func (p Project) StatePath(alias string) string { return p.Path(StateDir, alias+".json") }

// Name is the project's name, as audience rules (audience) match
// it: the manifest's "project", or, when that is unset, the project
// folder's base name (defaulted reports which).
func (p Project) Name(m *Manifest) (name string, defaulted bool) {
	if m != nil && m.Project != "" {
		return m.Project, false
	}
	return filepath.Base(p.root), true
}

// Check reports whether the project exists: an error wrapping ErrNoProject,
// saying to run `ctx init`, when .context/context.config.json does not.
func (p Project) Check() error {
	if _, err := os.Stat(p.Path(ManifestName)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return p.noProject()
		}
		return err
	}
	return nil
}

// noProject is the error of a folder with no manifest: it wraps
// ErrNoProject and says what to do. When a project above was passed over
// (Find stops at the top of a git work tree without a manifest; a caller
// may also check a folder without Find) it names that project and how to
// run there, rather than saying to start a second one inside it.
func (p Project) noProject() error {
	gitTop := ""
	for dir := p.root; ; dir = filepath.Dir(dir) {
		if dir != p.root && HasManifest(dir) {
			if phys := physical(p.root); !naming.Within(physical(dir), phys) {
				return fmt.Errorf("%s: %w: it is reached through a symbolic link, and its own folder, %s, is not inside the project at %s (ctx goes up the physical folders, as git does): run ctx there, or with -C %s (or `ctx init` to start a project of its own here)", p.root, ErrNoProject, phys, dir, dir)
			}
			if gitTop != "" {
				return fmt.Errorf("%s: %w: it is inside the project at %s, but in the git repository at %s, which ctx takes for a project of its own: run ctx in %s, or with -C %s (or `ctx init` to start a project of its own here)", p.root, ErrNoProject, dir, gitTop, dir, dir)
			}
			return fmt.Errorf("%s: %w: it is inside the project at %s: run ctx there, or with -C %s (or `ctx init` to start a project of its own here)", p.root, ErrNoProject, dir, dir)
		}
		if gitTop == "" && isWorkTreeTop(dir) {
			gitTop = dir
		}
		if filepath.Dir(dir) == dir {
			return fmt.Errorf("%s: %w (run `ctx init` to start one)", p.root, ErrNoProject)
		}
	}
}

// ReadManifest reads and parses .context/context.config.json (see
// ParseManifest), then the user's own sources in
// .context/context.local.json when it exists (ParseLocal), merged into
// Packages with Local set, and the user's allowances (Allow). An alias in both files is an error naming both.
// A missing manifest is an error wrapping ErrNoProject.
func (p Project) ReadManifest() (*Manifest, error) {
	data, err := boundedfile.ReadFile(p.Path(ManifestName), MaxFileBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, p.noProject()
		}
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	m, err := ParseManifest(Rel(ManifestName), data)
	if err != nil {
		return nil, err
	}
	m.lines = packageLines(data, m.Packages)
	local, err := boundedfile.ReadFile(p.Path(LocalName), MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", Rel(LocalName), err)
	}
	if err := p.checkLocalUntracked(m); err != nil {
		return nil, err
	}
	lf, err := ParseLocal(Rel(LocalName), local)
	if err != nil {
		return nil, err
	}
	m.Allow, m.AllowWeb, m.AllowInside, m.UserRegistry = lf.Allow, lf.AllowWeb, lf.AllowInside, lf.Registry
	var dups []string
	for _, s := range lf.Packages {
		for _, c := range m.Packages {
			if naming.AliasKey(c.Alias) != naming.AliasKey(s.Alias) {
				continue
			}
			what := "alias " + safetext.Quote(s.Alias) + " is"
			if c.Alias != s.Alias { // one folder on macOS and Windows
				what = fmt.Sprintf("aliases %s and %s (one folder where case is ignored) are", safetext.Quote(c.Alias), safetext.Quote(s.Alias))
			}
			dups = append(dups, fmt.Sprintf("%s in both %s and %s: remove it from one of them (%s is committed, %s is yours alone)",
				what, Rel(ManifestName), Rel(LocalName), Rel(ManifestName), Rel(LocalName)))
		}
	}
	if len(dups) > 0 {
		return nil, errors.New(strings.Join(dups, "\n"))
	}
	m.Packages = append(m.Packages, lf.Packages...)
	return m, nil
}

// checkLocalUntracked refuses .context/context.local.json when the
// project's git repository tracks it: its allowances and packages are the
// user's word only while the file is the user's own, and a teammate can
// commit it (`git add -f` passes .context/.gitignore), after which every
// clone and pull would bring the teammate's allowances. The file is left
// as it is. When git does not track it but no .gitignore from the work
// tree's root down ignores it either (markdown.IgnoredPath),
// m.Warnings says so (the next `git add -A` would commit it). A
// project outside any git repository is not checked. Called only when the
// file exists (its cost: bench/README.md "fixD17").
func (p Project) checkLocalUntracked(m *Manifest) error {
	st, err := gitengine.FileStatus(p.root, p.Path(LocalName))
	if err != nil {
		return fmt.Errorf("%s: cannot tell whether git tracks it, so its allowances and packages are not used: %w", Rel(LocalName), err)
	}
	if st.Tracked {
		return fmt.Errorf("%s is tracked by git: it came from a commit, not from you, so ctx uses none of its allowances or packages; "+
			"check what it holds (it may allow a teammate's source to read your files or send your tokens), then run `git rm --cached %s` "+
			"(the file stays on disk) and commit that", Rel(LocalName), Rel(LocalName))
	}
	if st.InRepository && !markdown.IgnoredPath(os.DirFS(st.Root), st.Rel, false) {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s is not ignored by git: add the line /%s to %s, or your next `git add -A` commits your allowances for everyone",
			Rel(LocalName), LocalName, Rel(GitignoreName)))
	}
	return nil
}

// MaxFileBytes bounds what ReadManifest and ReadLock read of the
// manifest, the local file and the lock: 64 MiB, some hundred times a
// lock of a thousand packages. They come with a clone: one committed as a
// link to /dev/zero, or a fifo, must not fill ctx's memory or hang it
// (own21; internal/boundedfile's rule).
const MaxFileBytes = 64 << 20

// CheckRecordsUntracked refuses the records ctx keeps of what it did on
// this machine, the entries of .context/ named (StateDir: what it
// installed, the proof that packages/ holds the lock's files; IndexDir:
// the search index, whose passages are served as the files' text; TmpDir:
// changes in progress, whose journals the next command rolls forward into
// the packages, the lock, the manifest and context.local.json), when
// the project's git repository tracks a file under one of them: a
// teammate can commit them (`git add -f` passes .context/.gitignore), and
// a clone then took planted files as installed and served planted
// passages as the locked package's (red21). An entry that does not exist
// is not looked at; a project outside any git repository is not checked.
// Nothing is changed: the error names what git tracks and the way out.
func (p Project) CheckRecordsUntracked(names ...string) error {
	var present []string
	for _, n := range names {
		if _, err := os.Lstat(p.Path(n)); err == nil {
			present = append(present, n)
		}
	}
	if len(present) == 0 {
		return nil
	}
	counts, err := p.recordsTracked()
	if err != nil {
		return fmt.Errorf("%s: cannot tell whether git tracks what ctx recorded there, so it is not used: %w", DirName, err)
	}
	tracked := func(n string) int { return counts[n] }
	var bad []string
	for _, n := range present {
		if c := tracked(n); c > 0 {
			bad = append(bad, fmt.Sprintf("%s/ (%d)", Rel(n), c))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	var rm []string // every record git tracks, asked for or not
	for _, n := range []string{StateDir, IndexDir, TmpDir} {
		if tracked(n) > 0 {
			rm = append(rm, Rel(n))
		}
	}
	also := ""
	if tracked(PackagesDir) > 0 {
		also = fmt.Sprintf(" and `git rm -r -q --cached %s` (its files stay on disk, and ctx shows where they differ from the lock)", Rel(PackagesDir))
	}
	return fmt.Errorf("git tracks files under %s: ctx keeps there what it installed, indexed or was changing on this machine, and these came from a commit, so ctx uses none of them "+
		"(they could make it take planted files for the locked ones, serve planted passages, or write a teammate's sources and allowances into your %s); check what the commit changed under %s/, then run `git rm -r -q %s` "+
		"(ctx writes its own again)%s, commit that, and run `ctx install`",
		strings.Join(bad, " and "), Rel(LocalName), DirName, strings.Join(rm, " "), also)
}

// recordsSeen is what git tracked under .context's record folders
// (recordsTracked) when its index had the stamp index.
type recordsSeen struct {
	index  fileid.Stamp
	counts map[string]int
}

// recordsMemo holds, per project root, the last recordsTracked answer of
// this process: an install or update checks in the workspace and again
// when its index sync starts, and each check read git's whole index
// (25 ms of CPU in a repository of 100,000 files).
var recordsMemo struct {
	sync.Mutex
	byRoot map[string]recordsSeen
}

// trackedUnder is gitengine.TrackedUnder (a variable for the tests that
// count its reads).
var trackedUnder = gitengine.TrackedUnder

// recordsTracked counts the files git tracks under each of StateDir,
// IndexDir, TmpDir and PackagesDir. git's index is read again only when
// its stamp (size, mtime, ctime, inode, taken before the read) moved
// since this process last read it for the project: git writes a new
// index file for every change, so an unchanged stamp is an unchanged
// answer; without a ctime nothing is remembered.
func (p Project) recordsTracked() (map[string]int, error) {
	var stamp fileid.Stamp
	if f := p.GitIndexFile(); f != "" {
		if fi, err := os.Stat(f); err == nil {
			stamp = fileid.Of(fi)
		}
	}
	if stamp.CTime != 0 {
		recordsMemo.Lock()
		seen, ok := recordsMemo.byRoot[p.root]
		recordsMemo.Unlock()
		if ok && seen.index == stamp {
			return seen.counts, nil
		}
	}
	_, files, err := trackedUnder(p.root, p.Path("."))
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, f := range files {
		for _, n := range [...]string{StateDir, IndexDir, TmpDir, PackagesDir} {
			if f == n || strings.HasPrefix(f, n+"/") {
				counts[n]++
			}
		}
	}
	if stamp.CTime != 0 {
		recordsMemo.Lock()
		if recordsMemo.byRoot == nil {
			recordsMemo.byRoot = map[string]recordsSeen{}
		}
		recordsMemo.byRoot[p.root] = recordsSeen{index: stamp, counts: counts}
		recordsMemo.Unlock()
	}
	return counts, nil
}

// ReadLock reads and parses .context/context.lock with ParseLock
// (errors name ".context/context.lock" with line:column). A missing lock
// is an error wrapping fs.ErrNotExist.
func (p Project) ReadLock() (*lockfile.Lock, error) {
	data, err := p.ReadLockData()
	if err != nil {
		return nil, err
	}
	return ParseLock(Rel(LockName), data)
}

// ReadLockData is the bytes of .context/context.lock, read bounded
// (MaxFileBytes, a regular file, no wait on a fifo: internal/boundedfile):
// the one read of the lock, for ReadLock and for a caller that compares
// or keeps its bytes (changes, the git hooks; review of own21). A missing
// lock is an error wrapping fs.ErrNotExist.
func (p Project) ReadLockData() ([]byte, error) {
	data, err := boundedfile.ReadFile(p.Path(LockName), MaxFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	return data, err
}

// ParseLock parses a lock's bytes (lockfile.Parse), each entry checked by
// its kind's rules (source/kinds.CheckPin); name is used in error
// messages.
func ParseLock(name string, data []byte) (*lockfile.Lock, error) {
	return lockfile.Parse(name, data, kinds.CheckPin)
}

// Package is an installed package as the indexer and the MCP server see
// it: where its files are, and what pins them.
type Package struct {
	Alias  string
	Kind   string // KindGit, KindHTTPS or KindDir
	Source string
	Path   string // sub-path inside the source repository or archive
	Ref    string
	Rev    string // the lock's rev: a commit for git, a content hash for https; "" for dir (live)
	// Fetched is when an https package's content was fetched (the lock's
	// fetched); zero for the other kinds.
	Fetched time.Time
	// Dir is the folder whose files are the package's: packages/<alias>
	// for a locked package, the folder itself for a dir source (for a
	// single-file dir source, the folder holding it).
	Dir string
	// Only, when set, is the one file of Dir (a name in it) that is the
	// package: a dir source naming a file, such as AGENTS.md.
	Only string
	// Local: a dir source of .context/context.local.json, the user's own.
	Local bool
	// Project is the project root when a dir source is inside it ("" when
	// not): the project's .gitignore files above Dir apply to its walk.
	// Like Dir, it moves with the project.
	Project string
	// Tracked, when not nil, is what a committed dir source inside the
	// project may serve: the files of Dir git tracks (checkShared); the
	// others are held back. nil: all its files (the user's own source,
	// one allowed, one outside git). Not part of its identity (the walk
	// of its files follows it; the indexer's walk record keys by it).
	Tracked *Tracked `json:"-"`
	// MaxFiles and MaxBytes bound a dir source's walk (the files and
	// folders walked, its documents' bytes together); 0 for a locked
	// package.
	MaxFiles int
	MaxBytes int64
	// Withheld lists the documents (paths in the package, one a line:
	// Package stays comparable) audience rules kept out of its install,
	// and Audience the project name they were applied for (the lock's): a
	// link or a reference to one is withheld, not broken (Withholds). Read
	// from what ctx installed (.state/<alias>.json's "withheld"), only
	// when the lock counts some.
	Withheld string
	Audience string
	// State is the stamp (size and modification time) of the package's
	// state file, .state/<alias>.json, as Installed's Lstat saw it: an
	// install rewrites the state, and this changes the package's identity,
	// so that the index renders INDEX.md again, which names the commit
	// installed when it is not the lock's (BehindRev; polish22). It costs
	// no read: the Lstat is InstalledHere's. "" for a dir source.
	State string
}

// WithheldNote says why the document doc of p (one it Withholds) is not
// here: the one wording of a link's and a reference's "withheld" class.
func (p Package) WithheldNote(doc string) string {
	who := "this project"
	if p.Audience != "" {
		who = "project " + safetext.Quote(p.Audience)
	}
	return fmt.Sprintf("%s/%s is withheld for %s by its audience rules (ctx install --verbose names them)", p.Alias, doc, who)
}

// Withholds reports whether audience rules kept the document rel (a path
// in the package) out of p's install. It scans Withheld: for many lookups
// (every unresolved link of a package), take WithheldSet once.
func (p Package) Withholds(rel string) bool {
	for rest := p.Withheld; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if line == rel {
			return true
		}
	}
	return false
}

// WithheldSet is Withheld as a set: Withholds(rel) is WithheldSet()[rel].
// nil when nothing is withheld.
func (p Package) WithheldSet() map[string]bool {
	if p.Withheld == "" {
		return nil
	}
	set := map[string]bool{}
	for _, line := range strings.Split(p.Withheld, "\n") {
		set[line] = true
	}
	return set
}

// IsInstalled reports whether alias's package folder, packages/<alias>,
// exists (it is not followed if it is a symbolic link); else ctx list and
// list_contexts call it missing. The packages the index holds and the MCP
// server serves (Installed), and what ctx list, status and list_contexts
// call installed, also need InstalledHere (listhere21).
func (p Project) IsInstalled(alias string) bool {
	_, err := os.Lstat(p.PackageDir(alias))
	return err == nil
}

// InstalledHere reports whether ctx installed alias's package on this
// machine: its state file, .state/<alias>.json, is a regular file (not
// followed if it is a link). Files under packages/<alias> without one came
// from somewhere else (a teammate may commit packages/ on purpose), so
// nothing proves them the lock's: neither the index (Installed) nor the
// MCP document tools serve them as the locked commit's text (mcppkg21).
// A state git tracks is no proof either (CheckRecordsUntracked).
func (p Project) InstalledHere(alias string) bool {
	_, ok := p.stateStamp(alias)
	return ok
}

// NotInstalledWhy says, for a message, why InstalledHere is false for
// alias: what its state file is ("is missing", "is a fifo, not a regular
// file"); "" when it holds. red23: a fifo there was called missing. A
// link is to be removed first: ctx follows none in .context/, so `ctx
// install`, which the messages advise, does not replace it (it warns;
// review of red23: status said only "run `ctx install`").
func (p Project) NotInstalledWhy(alias string) string {
	fi, err := os.Lstat(p.StatePath(alias))
	switch {
	case err == nil && fi.Mode().IsRegular():
		return ""
	case err == nil && fi.Mode().Type() == fs.ModeSymlink:
		return "is " + boundedfile.Describe(fi.Mode()) + ", not a regular file: remove it first"
	case err == nil:
		return "is " + boundedfile.Describe(fi.Mode()) + ", not a regular file"
	case errors.Is(err, fs.ErrNotExist):
		return "is missing"
	}
	return "cannot be read (" + err.Error() + ")"
}

// stateStamp is InstalledHere, and the state file's stamp (Package.State)
// when it holds.
func (p Project) stateStamp(alias string) (string, bool) {
	fi, err := os.Lstat(p.StatePath(alias))
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10), true
}

// BehindRev is the rule of "behind the lock": installed, the commit a
// package's state records (StateHead.Commit), when it is not locked, the
// lock's: a pull or checkout brought another lock and no `ctx install`
// followed, so the package's files are installed's text, not locked's.
// "" when they agree or no commit is recorded. list, status and verify
// (workspace) and INDEX.md's package line (indexer) tell it by this.
func BehindRev(installed, locked string) string {
	if installed == "" || installed == locked {
		return ""
	}
	return installed
}

// StateHead is the head of a package's state file (.state/<alias>.json,
// workspace's to write and read in full): what a reader of the installed
// packages needs without the file's per-file records. workspace's state
// type embeds it as its first field, so "withheld" is the file's first
// key (null when nothing is withheld) and ReadStateHead stops there
// instead of decoding the records (4.3 MB for 20,000 files, on every
// search and MCP snapshot).
type StateHead struct {
	// Withheld lists the documents audience rules kept out of the
	// install (paths in the package), sorted.
	Withheld []string `json:"withheld"`
	// Commit is the commit ctx installed: the file's second key, which
	// workspace's state writes as its own field (its Rev, of the same
	// JSON name, hides this one in the state type: Commit is only what
	// ReadStateHead reads). list tells a package behind the lock by it
	// without the records (status21).
	Commit string `json:"commit"`
}

// MaxStateBytes bounds a package's state file (.state/ALIAS.json): 1 GiB,
// the git index's bound, as a state holds an entry a file as the index
// does (workspace reads it whole within it; own21).
const MaxStateBytes = 1 << 30

// ReadStateHead reads the head of the state file at path: its first two
// keys when they are "withheld" and "commit"; a file written otherwise
// (by a ctx before round 17's fix, "withheld" after the records or
// absent) is decoded in full.
func ReadStateHead(path string) (StateHead, error) {
	var h StateHead
	f, err := boundedfile.Open(path, MaxStateBytes)
	if err != nil {
		return h, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, fmt.Errorf("%s: not a JSON object", path)
	}
	if dec.More() {
		if k, err := dec.Token(); err == nil && k == "withheld" {
			if err := dec.Decode(&h.Withheld); err != nil {
				return StateHead{}, fmt.Errorf("%s: %w", path, err)
			}
			if dec.More() {
				if k, err := dec.Token(); err == nil && k == "commit" {
					if err := dec.Decode(&h.Commit); err != nil {
						return StateHead{}, fmt.Errorf("%s: %w", path, err)
					}
					return h, nil
				}
			}
		}
	}
	h = StateHead{}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return h, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return StateHead{}, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// withheld reads the documents audience rules kept out of alias's install,
// as workspace recorded them in its state file (its "withheld"); nil when
// the file cannot be read (the links and references to them then look
// broken, as before any install recorded them).
func (p Project) withheld(alias string) []string {
	h, err := ReadStateHead(p.StatePath(alias))
	if err != nil {
		return nil
	}
	return h.Withheld
}

// SourcePath is where a local source (a dir source, or a git repository
// named by a local path or a file:// URL: naming.LocalPath) is: its path as
// given when absolute, else joined onto the project root.
func (p Project) SourcePath(source string) string {
	if path, ok := naming.LocalPath(source); ok {
		source = path
	}
	if filepath.IsAbs(source) {
		return filepath.Clean(source)
	}
	return filepath.Join(p.root, filepath.FromSlash(source))
}

// Live returns the manifest's dir sources that CheckSource accepts as
// packages, whether or not their file or folder exists now (see Present):
// they are indexed and served in place. A refused one is left out
// (Refused says why): nothing of it is read or served.
func (p Project) Live(m *Manifest) []Package {
	pkgs, _ := p.live(m, false)
	return pkgs
}

// Refused returns an error for each local source of m (a dir source, or a
// git repository on this machine), and each https spec asking for a token
// or the private network, that CheckSource refuses, naming its
// entry (Manifest.Where). ctx install and ctx index report them and exit
// non-zero; the MCP server warns on stderr; install and update fetch
// nothing of a refused git source.
func (p Project) Refused(m *Manifest) []*SourceError {
	_, errs := p.live(m, true)
	return errs
}

// SourceError is a local source refused (Refused): its alias, where its
// entry is, and why.
type SourceError struct {
	Alias string
	Where string // Manifest.Where
	Err   error
}

func (e *SourceError) Error() string { return e.Where + ": " + e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// live checks m's dir sources, and its git sources too when git is set
// (Refused: a git source is checked only for its errors, and checking one
// inside the project reads its git metadata, which Live, on every
// search's freshness check, has no need of).
func (p Project) live(m *Manifest, git bool) ([]Package, []*SourceError) {
	var out []Package
	var errs []*SourceError
	var taken []dirPlace // the dir sources kept so far
	for _, s := range m.Packages {
		if !git && s.KindOf() != KindDir {
			continue
		}
		dir, tracked, err := p.checkSource(m, s)
		if err == nil && s.KindOf() == KindDir {
			var at dirPlace
			if at, err = overlap(taken, s, dir); err == nil {
				taken = append(taken, at)
			}
		}
		if err != nil {
			errs = append(errs, &SourceError{Alias: s.Alias, Where: m.Where(s), Err: err})
			continue
		}
		if s.KindOf() != KindDir {
			continue
		}
		pkg := Package{Alias: s.Alias, Kind: KindDir, Source: s.Source, Dir: dir, Local: s.Local, Tracked: tracked,
			MaxFiles: DefaultDirMaxFiles, MaxBytes: DefaultDirMaxBytes}
		if l := s.Limits; l != nil && l.MaxFiles > 0 {
			pkg.MaxFiles = l.MaxFiles
		}
		if l := s.Limits; l != nil && l.MaxTotalBytes > 0 {
			pkg.MaxBytes = l.MaxTotalBytes
		}
		if fi, err := os.Stat(pkg.Dir); err == nil && !fi.IsDir() {
			pkg.Dir, pkg.Only = filepath.Dir(pkg.Dir), filepath.Base(pkg.Dir)
		}
		if naming.Within(p.root, pkg.Dir) {
			pkg.Project = p.root
		}
		out = append(out, pkg)
	}
	return out, errs
}

// dirPlace is where a dir source leads (resolved through links).
type dirPlace struct {
	alias, source, real string
}

// overlap is the rule that no file is two dir sources' (docs and docs/adr
// would index docs/adr's files twice): s, leading to dir (CheckSource's
// answer), is refused when it holds, or is held by, or is, a dir source
// in taken. It returns s's place otherwise.
func overlap(taken []dirPlace, s PackageSpec, dir string) (dirPlace, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	at := dirPlace{alias: s.Alias, source: s.Source, real: real}
	for _, t := range taken {
		how := ""
		switch {
		case t.real == real:
			how = "is the same as"
		case naming.Within(t.real, real):
			how = "is inside"
		case naming.Within(real, t.real):
			how = "holds"
		default:
			continue
		}
		return at, fmt.Errorf("%s %s dir source %s (%s): their files would be indexed twice; keep one of them (remove the other with `ctx remove`)",
			safetext.Quote(s.Source), how, t.alias, safetext.Quote(t.source))
	}
	return at, nil
}

// Overlap reports whether dir spec s would overlap a dir source of m (the
// rule Live and Refused apply: see overlap), for ctx add to refuse it
// before anything is recorded; nil when it would not, or when s is not a
// dir spec or m's other sources cannot be checked.
func (p Project) Overlap(m *Manifest, s PackageSpec) error {
	if s.KindOf() != KindDir {
		return nil
	}
	dir, err := p.CheckSource(m, s)
	if err != nil {
		return nil // CheckSource's own error is the caller's to report
	}
	var taken []dirPlace
	for _, o := range m.Packages {
		if o.KindOf() != KindDir || o.Alias == s.Alias {
			continue
		}
		if d, err := p.CheckSource(m, o); err == nil {
			at, _ := overlap(nil, o, d)
			taken = append(taken, at)
		}
	}
	_, err = overlap(taken, s, dir)
	return err
}

// The bounds of a dir source's walk when its spec's limits set none: the
// files and folders walked, and the bytes of its documents together.
const (
	DefaultDirMaxFiles = 100_000
	DefaultDirMaxBytes = 1 << 30
)

// ErrOutside is what CheckSource's error wraps when a committed local
// source resolves outside the project and is not allowed.
var ErrOutside = errors.New("outside the project")

// ErrNotAllowed is what CheckSource's error wraps when a committed https
// spec asks for a token or the private network the user has not allowed.
var ErrNotAllowed = errors.New("not allowed")

// CheckSource is the one containment rule of sources, above all of local
// ones: a dir source,
// or a git source whose source is a local path or a file:// URL
// (naming.LocalPath). It resolves the source's path (SourcePath) through
// every symbolic link and returns where it leads, or an error when, for a
// dir source, that is a filesystem root or the user's home folder
// (WithHome; never a folder of documents; `ln -s / x` is one too), or, for
// a committed spec (not Local), anywhere outside the project root (also
// resolved) that m's allowances (Manifest.Allow, the user's own, from
// .context/context.local.json) do not name: the committed manifest comes
// with a clone, and must never make ctx read the user's own files. A path
// that does not exist is returned as it is (nothing to read; Present is
// false). A source that is not local (a URL; an https source) gives "".
// A committed https spec is refused (ErrNotAllowed) when it asks for a
// token from the user's environment or for the private network
// (WebAllowFor) and m's AllowWeb does not allow that for its origin: the
// committed manifest must never make ctx send the user's secrets to a host
// of its choosing, nor reach the user's own network.
// m may be nil: no allowances.
func (p Project) CheckSource(m *Manifest, s PackageSpec) (string, error) {
	dir, _, err := p.checkSource(m, s)
	return dir, err
}

// checkSource is CheckSource, with the files a committed dir source inside
// the project may serve (checkShared; nil: all).
func (p Project) checkSource(m *Manifest, s PackageSpec) (string, *Tracked, error) {
	kind := s.KindOf()
	if kind == KindHTTPS {
		if s.Local || (s.TokenEnv == "" && !s.AllowPrivateNetwork) {
			return "", nil, nil
		}
		want, ok := WebAllowFor(s)
		if !ok {
			// Fail closed: a URL with no origin to bind an allowance to
			// (http://:8080/ dials this machine) asks for both all the same.
			return "", nil, fmt.Errorf("it asks for a token or the private network, and its source %s has no host to allow them for, so nothing is sent: write the URL with its host (https://host/path)",
				safetext.Quote(s.Source))
		}
		if m.AllowsWeb(want) {
			return "", nil, nil
		}
		var what []string
		if want.TokenEnv != "" {
			what = append(what, "to send your environment variable "+want.TokenEnv+" as a token to "+safetext.Quote(want.Origin))
		}
		if want.PrivateNetwork {
			what = append(what, "to reach "+safetext.Quote(want.Origin)+" on the private network (allowPrivateNetwork)")
		}
		return "", nil, fmt.Errorf("it asks %s, and %s is committed: a clone must never make ctx send your secrets to a host it names or reach your own network, so it is %w and nothing is sent. "+
			"If you put it there yourself, allow it: `ctx install --allow-outside %s` (recorded in %s, which is not committed, for that host only)",
			strings.Join(what, " and "), Rel(ManifestName), ErrNotAllowed, s.Alias, Rel(LocalName))
	}
	if _, ok := naming.LocalPath(s.Source); !ok {
		return "", nil, nil
	}
	target := p.SourcePath(s.Source)
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil, nil
		}
		return "", nil, fmt.Errorf("%s cannot be resolved: %w", safetext.Quote(s.Source), err)
	}
	via := ""
	if real != target {
		via = " (it leads to " + safetext.Quote(real) + ")"
	}
	if kind == KindDir {
		if real == filepath.VolumeName(real)+string(filepath.Separator) {
			return "", nil, fmt.Errorf("%s is a filesystem root%s: a dir source is a folder of documents, not a whole disk; name the folder that holds them", safetext.Quote(s.Source), via)
		}
		if p.home != "" {
			if h, err := filepath.EvalSymlinks(p.home); err == nil && h == real {
				return "", nil, fmt.Errorf("%s is your home folder%s: a dir source is a folder of documents, not all your files; name the folder that holds them", safetext.Quote(s.Source), via)
			}
		}
	}
	root, err := filepath.EvalSymlinks(p.root)
	if err != nil {
		root = p.root
	}
	leads := real
	if rel, ok := naming.RelIn(root, real); ok {
		// Inside: said from the project root as the project names it, so
		// paths made relative to .context/ (INDEX.md's links) stay short.
		// A repository's git metadata may still lead outside.
		leads = ""
		if kind == KindGit {
			if leads, err = gitLeads(root, real); err != nil {
				return "", nil, fmt.Errorf("git repository %s cannot be checked: %w", safetext.Quote(s.Source), err)
			}
		}
		if leads == "" {
			tracked, err := p.checkShared(m, s, root, rel, real)
			if err != nil {
				return "", nil, err
			}
			return filepath.Join(p.root, rel), tracked, nil
		}
		via = " (its git metadata leads to " + safetext.Quote(leads) + ": .git, commondir, objects/info/alternates or a symbolic link in them)"
	}
	if s.Local || m.Allows(leads) {
		return leads, nil, nil
	}
	if kind == KindDir {
		return "", nil, fmt.Errorf("%s%s is %w, and %s is committed: a clone must never make ctx read files outside it, so nothing of it is read or served. "+
			"If it is your own source, keep it local: `ctx remove %s`, then `ctx add %s` (a source outside the project goes to %s, which is not committed)",
			safetext.Quote(s.Source), via, ErrOutside, Rel(ManifestName), s.Alias, safetext.Quote(real), Rel(LocalName))
	}
	if via == "" && real != s.Source {
		via = " (" + safetext.Quote(real) + ")"
	}
	return "", nil, fmt.Errorf("git repository %s%s is %w, and %s is committed: a clone must never make ctx copy a repository of yours into it, so nothing of it is fetched or served. "+
		"If you put it there yourself, allow it: `ctx install --allow-outside %s` (recorded in %s, which is not committed)",
		safetext.Quote(s.Source), via, ErrOutside, Rel(ManifestName), s.Alias, Rel(LocalName))
}

// gitLeads returns where the git metadata of the repository at dir
// (resolved, absolute, inside root) leads outside root, as go-git, which
// reads it, follows each: its git directory (gitengine.DotGit: dir/.git,
// or the target of a "gitdir:" file there; dir itself when bare), the common directory a
// "commondir" file names, the object stores objects/info/alternates names
// (an absolute path, or one relative to objects/info as git reads it, or
// to the git directory as go-git does), and the target of any symbolic
// link inside them. "" when all of it is inside root.
func gitLeads(root, dir string) (string, error) {
	gitdir, err := gitengine.DotGit(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		gitdir = dir // bare
	case err != nil:
		return "", err
	}
	var out string
	seen := map[string]bool{}
	stop := errors.New("outside")
	var visit func(d string) error
	visit = func(d string) error {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil // nothing there: go-git finds nothing either
		}
		if !naming.Within(root, real) {
			out = real
			return stop
		}
		if seen[real] {
			return nil
		}
		seen[real] = true
		if b, err := os.ReadFile(filepath.Join(real, "commondir")); err == nil {
			if c := strings.TrimSpace(string(b)); c != "" {
				if !filepath.IsAbs(c) {
					c = filepath.Join(real, c)
				}
				if err := visit(c); err != nil {
					return err
				}
			}
		}
		if b, err := os.ReadFile(filepath.Join(real, "objects", "info", "alternates")); err == nil {
			for _, a := range strings.Split(string(b), "\n") {
				if a = strings.TrimSpace(a); a == "" {
					continue
				}
				cands := []string{a}
				if !filepath.IsAbs(a) {
					cands = []string{filepath.Join(real, "objects", "info", a), filepath.Join(real, a)}
				}
				for _, c := range cands {
					if err := visit(c); err != nil {
						return err
					}
				}
			}
		}
		return filepath.WalkDir(real, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.Type()&fs.ModeSymlink == 0 {
				return nil // what cannot be read, go-git cannot read either
			}
			t, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil
			}
			if !naming.Within(root, t) {
				out = t
				return stop
			}
			if fi, err := os.Stat(t); err == nil && fi.IsDir() {
				return visit(t) // a folder inside: what is in it counts too
			}
			return nil
		})
	}
	if err := visit(gitdir); err != nil && !errors.Is(err, stop) {
		return "", err
	}
	return out, nil
}

// Present reports whether pkg's files are there: its folder (or its one
// file) exists.
func (pkg Package) Present() bool {
	_, err := os.Lstat(filepath.Join(pkg.Dir, pkg.Only))
	return err == nil
}

// Installed returns what the index holds and the MCP server serves, sorted
// by alias: the packages of l that are installed (IsInstalled) by ctx on
// this machine (InstalledHere), and the dir
// sources of m (nil m: none) whose file or folder exists. It is the one
// list that `ctx index`, every command that re-indexes, and the MCP server
// give the indexer, so they all write the same INDEX.md. A locked package
// whose folder is missing, or whose state file is (a committed packages/
// in a clone), is left out until `ctx install` puts it back.
func (p Project) Installed(m *Manifest, l *lockfile.Lock) []Package {
	var out []Package
	for alias, e := range l.Packages {
		if !p.IsInstalled(alias) {
			continue
		}
		stamp, here := p.stateStamp(alias)
		if !here {
			continue
		}
		kind := e.Kind
		if kind == "" {
			kind = KindGit
		}
		pkg := Package{Alias: alias, Kind: kind, Source: e.Source, Path: e.Path, Ref: e.Ref, Rev: e.Rev, Fetched: e.Fetched, Dir: p.PackageDir(alias), State: stamp}
		if e.Withheld > 0 {
			pkg.Withheld, pkg.Audience = strings.Join(p.withheld(alias), "\n"), e.Audience
		}
		out = append(out, pkg)
	}
	if m != nil {
		for _, pkg := range p.Live(m) {
			if _, locked := l.Packages[pkg.Alias]; !locked && pkg.Present() {
				out = append(out, pkg)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
	return out
}

// ReadStateSums reads, of the state file at path, each installed file's
// SHA-256 (its "sum", as the lock's h1: hash reads the file, lower-case
// hex) by slash-separated path in the package: "" for a file recorded by
// a ctx before sums were, and for a link (its sum is its target's). For
// INDEX.md's mark of the files that differ from what ctx installed
// (indexer.editedOf, trust23), read only when INDEX.md is rendered.
//
// It is nil, with no error, for a state that records neither a file nor
// the lock's hash (a ctx from before files were recorded; the tests'
// stub states): nothing to tell a file by. A state ctx wrote of an empty
// package records its hash, and every file there now is one it did not
// install (rv-trust23).
func ReadStateSums(path string) (map[string]string, error) {
	data, err := boundedfile.ReadFile(path, MaxStateBytes)
	if err != nil {
		return nil, err
	}
	var v struct {
		Files []struct {
			Path  string      `json:"path"`
			Bytes []byte      `json:"pathBytes"`
			Mode  fs.FileMode `json:"mode"`
			Sum   string      `json:"sum"`
		} `json:"files"`
		Hash string `json:"hash"`
	}
	if err := jsonfile.Unmarshal(data, &v); err != nil { // the state's own decoder (workspace.readStateFile)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(v.Files) == 0 && v.Hash == "" {
		return nil, nil
	}
	out := make(map[string]string, len(v.Files))
	for _, f := range v.Files {
		p := f.Path
		if f.Bytes != nil {
			p = string(f.Bytes)
		}
		if f.Mode&fs.ModeSymlink != 0 {
			f.Sum = ""
		}
		out[p] = f.Sum
	}
	return out, nil
}
