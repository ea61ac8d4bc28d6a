package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/netguard"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/dirsrc"
	"github.com/ctx-dev/ctx/source/gitsrc"
	"github.com/ctx-dev/ctx/source/httpsrc"
	"github.com/ctx-dev/ctx/source/kinds"
	"github.com/go-playground/validator/v10"
)

// Manifest is .context/context.config.json: the project's intent. Committed.
type Manifest struct {
	Registry string        `json:"registry,omitempty"`
	Project  string        `json:"project,omitempty"` // the name audience rules match (Project.Name); "" = the project folder's name
	Index    IndexSettings `json:"index"`
	Packages []PackageSpec `json:"packages" validate:"dive"`
	// Embeddings is the project's hint for semantic search: a model it
	// recommends, which ctx shows. Never an endpoint: a committed URL
	// would send every document to whoever wrote it (the endpoint is the
	// user's own, cmd/ctx embedConfig); one here is read only to say it
	// is ignored.
	Embeddings *EmbeddingsHint `json:"embeddings,omitempty"`

	// Allow is the user's allowances, from .context/context.local.json
	// (never committed): the resolved absolute paths of local sources
	// outside the project that the committed manifest may name
	// (CheckSource).
	Allow []string `json:"-"`
	// AllowWeb is the user's allowances, from .context/context.local.json,
	// of what a committed https spec may ask of this machine: to send an
	// environment variable as a token, or to reach the private network,
	// each bound to the origin the spec names (CheckSource).
	AllowWeb []WebAllow `json:"-"`
	// UserRegistry is the registry location the user named (`ctx setup
	// --registry`, CTX_REGISTRY, their config), from
	// .context/context.local.json: while the committed Registry is the
	// same, it is the user's word, not a teammate's (UsersRegistry).
	UserRegistry string `json:"-"`
	// AllowInside is the user's allowances, from
	// .context/context.local.json, for committed sources inside the
	// project to read what git does not share (CheckSource, checkShared).
	AllowInside []InsideAllow `json:"-"`

	// Warnings are what ReadManifest found worth saying that is no error
	// (context.local.json not ignored by git), for the caller to show.
	Warnings []string `json:"-"`

	lines map[string]int // alias → line of its entry in the committed manifest (ReadManifest)
}

// UsersRegistry reports whether the registry the manifest names is the
// user's own choice: the location the user last named for this project
// (UserRegistry). One a clone or a pull brings is a teammate's: what it
// reads and offers is held to the committed manifest's rule (on this
// machine only inside the project, off the private network).
func (m *Manifest) UsersRegistry() bool {
	return m != nil && m.Registry != "" && m.Registry == m.UserRegistry
}

// Allows reports whether the user allowed the committed manifest to name
// the local source at path (resolved and absolute) outside the project: it
// is one of Allow, exactly. A nil m allows nothing.
func (m *Manifest) Allows(path string) bool {
	if m == nil {
		return false
	}
	for _, a := range m.Allow {
		if a == path {
			return true
		}
	}
	return false
}

// AddAllow records path (resolved and absolute) in Allow, once.
func (m *Manifest) AddAllow(path string) {
	if !m.Allows(path) {
		m.Allow = append(m.Allow, path)
	}
}

// WebAllow is one of the user's allowances for committed https specs
// (Manifest.AllowWeb; "allowWeb" in .context/context.local.json): the
// environment variable TokenEnv may be sent as a bearer token to Origin,
// and, when PrivateNetwork, Origin may be on a loopback, private or
// link-local address. Origin is WebAllowFor's: scheme://host:port, in
// lower case, the port always written.
type WebAllow struct {
	Origin         string `json:"origin"`
	TokenEnv       string `json:"tokenEnv,omitempty" validate:"omitempty,envname"`
	PrivateNetwork bool   `json:"privateNetwork,omitempty"`
}

// What says what w allows, for messages ("your environment variable
// WIKI_TOKEN and the private network").
func (w WebAllow) What() string {
	var parts []string
	if w.TokenEnv != "" {
		parts = append(parts, "your environment variable "+w.TokenEnv)
	}
	if w.PrivateNetwork {
		parts = append(parts, "the private network (loopback, private and link-local addresses)")
	}
	return strings.Join(parts, " and ")
}

// AllowsWeb reports whether the user allowed what want asks (WebAllowFor):
// its token variable by an entry of AllowWeb for the same origin and
// variable, the private network by one for the same origin. A nil m
// allows nothing.
func (m *Manifest) AllowsWeb(want WebAllow) bool {
	if m == nil {
		return false
	}
	token, private := want.TokenEnv == "", !want.PrivateNetwork
	for _, a := range m.AllowWeb {
		if a.Origin != want.Origin {
			continue
		}
		token = token || a.TokenEnv == want.TokenEnv
		private = private || a.PrivateNetwork
	}
	return token && private
}

// AddAllowWeb records want in AllowWeb: merged into the entry for its
// origin and variable when there is one.
func (m *Manifest) AddAllowWeb(want WebAllow) {
	for i, a := range m.AllowWeb {
		if a.Origin == want.Origin && a.TokenEnv == want.TokenEnv {
			m.AllowWeb[i].PrivateNetwork = a.PrivateNetwork || want.PrivateNetwork
			return
		}
	}
	m.AllowWeb = append(m.AllowWeb, want)
}

// WebAllowFor is what https spec s asks of this machine beyond a plain
// fetch: its tokenEnv and allowPrivateNetwork, bound to the origin of its
// source (scheme://host:port, lower case, the scheme's port written when
// the URL has none). ok is false when it asks neither, or s is no https
// spec with a URL.
func WebAllowFor(s PackageSpec) (want WebAllow, ok bool) {
	if s.KindOf() != KindHTTPS || (s.TokenEnv == "" && !s.AllowPrivateNetwork) {
		return WebAllow{}, false
	}
	origin, err := webOrigin(s.Source)
	if err != nil {
		return WebAllow{}, false
	}
	return WebAllow{Origin: origin, TokenEnv: s.TokenEnv, PrivateNetwork: s.AllowPrivateNetwork}, true
}

// webOrigin is raw's origin as WebAllow keeps it: scheme://host:port
// (netguard.Origin, the form gitengine.Origin gives a git remote's), for
// an http, https, ssh or git URL.
func webOrigin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	if netguard.DefaultPort(scheme) == 0 {
		return "", fmt.Errorf("%s is not an http, https, ssh or git URL", safetext.Quote(raw))
	}
	port := 0
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return "", fmt.Errorf("%s has no valid port", safetext.Quote(raw))
		}
	}
	origin, ok := netguard.Origin(scheme, u.Hostname(), port)
	if !ok {
		return "", fmt.Errorf("%s has no host", safetext.Quote(raw))
	}
	return origin, nil
}

// Where names a package's entry in messages: the file it is in, with the
// entry's line when known, and its alias (".context/context.config.json:7:
// package \"x\"").
func (m *Manifest) Where(s PackageSpec) string {
	if s.Local {
		return Rel(LocalName) + ": package " + safetext.Quote(s.Alias)
	}
	if n := m.lines[s.Alias]; n > 0 {
		return fmt.Sprintf("%s:%d: package %s", Rel(ManifestName), n, safetext.Quote(s.Alias))
	}
	return Rel(ManifestName) + ": package " + safetext.Quote(s.Alias)
}

// packageLines finds the line of each package's entry in data, in one
// reading of it (jsonfile.Positions: one Find per package cost 24 s of
// CPU for 4,000 packages in every command, red19).
func packageLines(data []byte, pkgs []PackageSpec) map[string]int {
	paths := make([][]string, len(pkgs))
	for i := range pkgs {
		paths[i] = []string{"packages", strconv.Itoa(i)}
	}
	out := make(map[string]int, len(pkgs))
	for i, pos := range jsonfile.Positions(data, paths) {
		if pos.Valid() {
			out[pkgs[i].Alias] = pos.Line
		}
	}
	return out
}

// IndexSettings configure INDEX.md and search.
type IndexSettings struct {
	BudgetTokens int `json:"budgetTokens,omitempty" validate:"omitempty,min=500,max=1000000"` // 0 = indexer.DefaultBudgetTokens
}

// EmbeddingsHint is a manifest's "embeddings": {"model": NAME}.
type EmbeddingsHint struct {
	Model string `json:"model,omitempty" validate:"omitempty,max=200"`
	// URL is never used (see Manifest.Embeddings).
	URL string `json:"url,omitempty"`
}

// Source kinds: each is its package under source/, and source/kinds the
// table of them. A spec with no kind is git, as every manifest before
// kinds existed; `ctx add` writes the kind of any other.
const (
	KindGit   = gitsrc.Name  // a git repository (URL or local), fetched sparse and shallow, locked by commit
	KindHTTPS = httpsrc.Name // documents over http(s): one page, an llms.txt index, or an archive; locked by content hash
	KindDir   = dirsrc.Name  // a local file or folder, indexed and served in place; never copied or locked
)

// Kinds lists the source kinds, in the order help texts name them.
var Kinds = kinds.Names()

// ParseKind is k as a source kind, in any case ("DIR" is dir, as kind: is
// in a query), or an error naming the kinds and the one a typo may mean:
// `"gti" is not a source kind (did you mean git?): use one of git, dir,
// https`.
func ParseKind(k string) (string, error) {
	l := strings.ToLower(k)
	if slices.Contains(Kinds, l) {
		return l, nil
	}
	return "", fmt.Errorf("%s is not a source kind%s: use one of %s", safetext.Quote(k), suggest.Hint(l, Kinds), strings.Join(Kinds, ", "))
}

// PackageSpec is one package the project wants (source.Spec: the kinds'
// packages read it too).
type PackageSpec = source.Spec

// Limits override a source's default limits (source.Limits).
type Limits = source.Limits

// AudienceIgnore is PackageSpec.Audience when a package's documents are
// installed whatever their audience rules say.
const AudienceIgnore = "ignore"

var envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Spec returns the manifest's spec for alias.
func (m *Manifest) Spec(alias string) (PackageSpec, bool) {
	for _, p := range m.Packages {
		if p.Alias == alias {
			return p, true
		}
	}
	return PackageSpec{}, false
}

// badRefRE matches what git's check-ref-format forbids in a ref name.
var badRefRE = lazyre.New(`[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^/|/$|\.$|\.lock$|^-`)

// manifestValidator is newValidator's, built once per process (a
// validator is safe for concurrent use).
var manifestValidator = sync.OnceValue(newValidator)

func newValidator() *validator.Validate {
	v := lockfile.NewValidator()
	for tag, ok := range map[string]func(string) bool{
		"gitref":  func(s string) bool { return !badRefRE().MatchString(s) },
		"ttl":     func(s string) bool { _, err := source.ParseDuration(s); return err == nil },
		"envname": envNameRE().MatchString,
	} {
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool { return ok(fl.Field().String()) }); err != nil {
			panic(err) // a programming error in the tag name
		}
	}
	return v
}

func manifestHint(name string) string {
	return fmt.Sprintf("fix %s by hand, or restore it with `git checkout %s`", name, name)
}

// CheckSpec validates one spec by the manifest's rules (alias, source,
// path, ref) and its kind's (source/kinds.CheckSpec), and returns its problems, each with its field (no position:
// the spec did not come from a file).
func CheckSpec(s PackageSpec) []jsonfile.Error {
	if err := manifestValidator().Struct(&s); err != nil {
		return jsonfile.RuleErrors(err, manifestMessage)
	}
	return kinds.CheckSpec(s, "")
}

// ParseManifest parses and validates a manifest; name is used in error
// messages. Every problem is reported at once, each with its line:column and
// field, as a *jsonfile.ErrorList.
func ParseManifest(name string, data []byte) (*Manifest, error) {
	data = jsonfile.TrimBOM(data)
	var m Manifest
	err := jsonfile.Decode(name, data, &m, jsonfile.Options{
		Validator: manifestValidator(),
		Message:   manifestMessage,
		Check: func() []jsonfile.Error {
			return checkPackages(m.Packages)
		},
		Hint: manifestHint(name),
		// Each side lists the packages its branch added: both are wanted,
		// so neither --ours nor --theirs, and git refuses a checkout of an
		// unmerged path.
		ConflictHint: fmt.Sprintf("edit %s to keep both sides' packages (each a whole entry) and delete the marker lines, then `git add` it and run `ctx install` to lock the packages the other side added", name),
	})
	if err != nil {
		return nil, err
	}
	if m.Packages == nil {
		m.Packages = []PackageSpec{}
	}
	return &m, nil
}

func manifestMessage(fe validator.FieldError) string {
	val := safetext.Quote(fmt.Sprint(fe.Value()))
	switch fe.Tag() {
	case "gitref":
		return val + " is not a valid git ref name"
	case "ttl":
		return val + " is not a duration: write it as 30m, 12h, 7d or 2w"
	case "envname":
		return val + " is not an environment variable name (letters, digits and '_', not starting with a digit)"
	}
	return lockfile.ValidationMessage(fe)
}

// checkPackages is the check of a list of package specs, the manifest's
// and context.local.json's alike: aliases unique (uniqueAliases), each
// spec by its kind's rules (kinds.CheckSpec), fields named packages[i].….
func checkPackages(pkgs []PackageSpec) []jsonfile.Error {
	errs := uniqueAliases(pkgs)
	for i, p := range pkgs {
		errs = append(errs, kinds.CheckSpec(p, fmt.Sprintf("packages[%d].", i))...)
	}
	return errs
}

// uniqueAliases reports each package whose alias an earlier one has, or
// names the same folder on macOS and Windows (naming.AliasKey: "DOCS" and
// "docs").
func uniqueAliases(pkgs []PackageSpec) []jsonfile.Error {
	var errs []jsonfile.Error
	first := map[string]int{}
	for i, p := range pkgs {
		if p.Alias == "" {
			continue
		}
		if j, dup := first[naming.AliasKey(p.Alias)]; dup {
			msg := fmt.Sprintf("alias %s is already used by packages[%d]; aliases must be unique", safetext.Quote(p.Alias), j)
			if other := pkgs[j].Alias; other != p.Alias {
				msg = fmt.Sprintf("alias %s is the folder of packages[%d] (%s) on macOS and Windows, which ignore case; aliases must differ in more than case", safetext.Quote(p.Alias), j, safetext.Quote(other))
			}
			errs = append(errs, jsonfile.Error{Field: fmt.Sprintf("packages[%d].alias", i), Msg: msg})
			continue
		}
		first[naming.AliasKey(p.Alias)] = i
	}
	return errs
}

// MarshalManifest returns the manifest's canonical bytes: fields in a fixed
// order, packages in manifest order, two-space indent, final newline.
func MarshalManifest(m *Manifest) ([]byte, error) {
	c := *m
	c.Packages = []PackageSpec{}
	for _, s := range m.Packages {
		if !s.Local {
			c.Packages = append(c.Packages, s)
		}
	}
	return encodeJSON(&c)
}

// LocalFile is .context/context.local.json: the user's own sources, in
// the manifest's packages shape, and the user's allowances (see
// Manifest.Allow).
type LocalFile struct {
	Packages    []PackageSpec `json:"packages" validate:"dive"`
	Allow       []string      `json:"allow,omitempty"`
	AllowWeb    []WebAllow    `json:"allowWeb,omitempty" validate:"dive"`
	AllowInside []InsideAllow `json:"allowInside,omitempty" validate:"dive"`
	// Registry is the registry location the user named last (Manifest.UserRegistry).
	Registry string `json:"registry,omitempty"`
}

// MarshalLocal encodes m's local packages (Local) and its allowances as
// .context/context.local.json, in the form MarshalManifest writes.
func MarshalLocal(m *Manifest) ([]byte, error) {
	c := LocalFile{Packages: []PackageSpec{}, Allow: m.Allow, AllowWeb: m.AllowWeb, AllowInside: m.AllowInside, Registry: m.UserRegistry}
	for _, s := range m.Packages {
		if s.Local {
			c.Packages = append(c.Packages, s)
		}
	}
	return encodeJSON(&c)
}

// HasLocal reports whether m has a local package or an allowance: what
// .context/context.local.json holds.
func (m *Manifest) HasLocal() bool {
	if len(m.Allow) > 0 || len(m.AllowWeb) > 0 || len(m.AllowInside) > 0 || m.UserRegistry != "" {
		return true
	}
	for _, s := range m.Packages {
		if s.Local {
			return true
		}
	}
	return false
}

func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseLocal parses and validates .context/context.local.json (name in
// messages): {"packages": [...], "allow": [...]}, each spec by the
// manifest's rules, each allowance a clean absolute path, once, each
// "allowWeb" entry by checkAllowWeb. The specs
// come back with Local set.
func ParseLocal(name string, data []byte) (*LocalFile, error) {
	data = jsonfile.TrimBOM(data)
	var f LocalFile
	err := jsonfile.Decode(name, data, &f, jsonfile.Options{
		Validator: manifestValidator(),
		Message:   manifestMessage,
		Check: func() []jsonfile.Error {
			errs := checkPackages(f.Packages)
			first := map[string]int{}
			for i, a := range f.Allow {
				field := fmt.Sprintf("allow[%d]", i)
				switch j, dup := first[a]; {
				case strings.IndexByte(a, 0) >= 0 || !filepath.IsAbs(a) || filepath.Clean(a) != a:
					errs = append(errs, jsonfile.Error{Field: field, Msg: safetext.Quote(a) + " is not a clean absolute path: an allowance is where a local source outside the project leads (`ctx install --allow-outside ALIAS` writes it)"})
				case dup:
					errs = append(errs, jsonfile.Error{Field: field, Msg: fmt.Sprintf("%s is already allow[%d]; list each path once", safetext.Quote(a), j)})
				default:
					first[a] = i
				}
			}
			firstIn := map[InsideAllow]int{}
			for i, a := range f.AllowInside {
				field := fmt.Sprintf("allowInside[%d].path", i)
				if msg := checkInsideAllow(a); msg != "" {
					errs = append(errs, jsonfile.Error{Field: field, Msg: msg})
				} else if j, dup := firstIn[a]; dup {
					errs = append(errs, jsonfile.Error{Field: field, Msg: fmt.Sprintf("%s is already allowInside[%d]; list each once", safetext.Quote(a.Path), j)})
				} else {
					firstIn[a] = i
				}
			}
			return append(errs, checkAllowWeb(f.AllowWeb)...)
		},
		Hint: fmt.Sprintf("fix %s by hand, or delete it (it holds only your own sources and allowances: add them again with `ctx add` and `ctx install --allow-outside`)", name),
	})
	if err != nil {
		return nil, err
	}
	if f.Packages == nil {
		f.Packages = []PackageSpec{}
	}
	for i := range f.Packages {
		f.Packages[i].Local = true
	}
	return &f, nil
}

// checkAllowWeb checks context.local.json's "allowWeb" (fields named
// allowWeb[i].…): each origin as WebAllowFor writes it, each entry
// allowing something, and each origin and variable once.
func checkAllowWeb(as []WebAllow) []jsonfile.Error {
	var errs []jsonfile.Error
	first := map[WebAllow]int{}
	for i, a := range as {
		field := fmt.Sprintf("allowWeb[%d]", i)
		key := WebAllow{Origin: a.Origin, TokenEnv: a.TokenEnv}
		switch o, err := webOrigin(a.Origin); {
		case err != nil || o != a.Origin:
			want := ""
			if err == nil {
				want = " (write it " + safetext.Quote(o) + ")"
			}
			errs = append(errs, jsonfile.Error{Field: field + ".origin", Msg: safetext.Quote(a.Origin) + " is not an origin as ctx writes it: scheme://host:port, in lower case, with the port" + want + "; `ctx install --allow-outside ALIAS` writes it"})
		case a.TokenEnv == "" && !a.PrivateNetwork:
			errs = append(errs, jsonfile.Error{Field: field, Msg: "allows nothing: give tokenEnv, privateNetwork or both, or delete the entry"})
		default:
			if j, dup := first[key]; dup {
				errs = append(errs, jsonfile.Error{Field: field, Msg: fmt.Sprintf("origin %s and tokenEnv %s are already allowWeb[%d]; list each once", safetext.Quote(a.Origin), safetext.Quote(a.TokenEnv), j)})
			} else {
				first[key] = i
			}
		}
	}
	return errs
}
