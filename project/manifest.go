package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
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

	lines map[string]int // alias → line of its entry in the committed manifest (ReadManifest)
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

// packageLines finds the line of each package's entry in data.
func packageLines(data []byte, pkgs []PackageSpec) map[string]int {
	out := make(map[string]int, len(pkgs))
	for i, s := range pkgs {
		if pos := jsonfile.Find(data, []string{"packages", strconv.Itoa(i)}); pos.Valid() {
			out[s.Alias] = pos.Line
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

// Source kinds. A spec with no kind is git, as every manifest before
// kinds existed; `ctx add` writes the kind of any other.
const (
	KindGit   = lockfile.KindGit   // a git repository (URL or local), fetched sparse and shallow, locked by commit
	KindHTTPS = lockfile.KindHTTPS // documents over http(s): one page, an llms.txt index, or an archive; locked by content hash
	KindDir   = "dir"              // a local file or folder, indexed and served in place; never copied or locked
)

// Kinds lists the source kinds, in the order help texts name them.
var Kinds = []string{KindGit, KindDir, KindHTTPS}

// PackageSpec is one package the project wants.
type PackageSpec struct {
	Alias  string `json:"alias" validate:"required,alias"`
	Kind   string `json:"kind,omitempty" validate:"omitempty,oneof=git dir https"` // "" = git
	Source string `json:"source" validate:"required"`                              // git URL or repository path, a local file or folder (dir), or an http(s) URL; a relative path is relative to the project root
	Path   string `json:"path,omitempty" validate:"omitempty,relpath"`             // git: sub-path inside the repository; https: folder inside an archive
	Ref    string `json:"ref,omitempty" validate:"omitempty,gitref"`               // git: branch, tag or commit; "" = the remote's default branch
	// Audience "ignore" installs every document, whatever its audience
	// rules say (audience); "" applies them (git and https).
	Audience string `json:"audience,omitempty" validate:"omitempty,oneof=ignore"`

	// https only.
	TTL                 string  `json:"ttl,omitempty" validate:"omitempty,ttl"`          // how long fetched content is trusted before update re-checks it; "" = DefaultTTL
	AllowPrivateNetwork bool    `json:"allowPrivateNetwork,omitempty"`                   // allow loopback, private and link-local addresses
	TokenEnv            string  `json:"tokenEnv,omitempty" validate:"omitempty,envname"` // the environment variable whose value is sent as a bearer token
	Limits              *Limits `json:"limits,omitempty"`                                // overrides of the default limits (https; maxFiles and maxTotalBytes for dir)

	// Local is set on the user's own sources, read from
	// .context/context.local.json (never committed); the others are the
	// committed manifest's. Only a local source, or one the user allowed
	// (Manifest.Allow), may be outside the project (CheckSource).
	Local bool `json:"-"`
}

// Limits override a source's default limits; zero fields keep the
// default. An https source has all but MaxTotalBytes; a dir source only
// MaxFiles and MaxTotalBytes (the bounds of its walk).
type Limits struct {
	MaxBytes        int64  `json:"maxBytes,omitempty" validate:"omitempty,min=1"`        // per document
	MaxArchiveBytes int64  `json:"maxArchiveBytes,omitempty" validate:"omitempty,min=1"` // an archive, downloaded and unpacked
	MaxFiles        int    `json:"maxFiles,omitempty" validate:"omitempty,min=1"`        // files in an archive; dir: files and folders walked (DefaultDirMaxFiles)
	MaxTotalBytes   int64  `json:"maxTotalBytes,omitempty" validate:"omitempty,min=1"`   // dir: all its documents together (DefaultDirMaxBytes)
	MaxPages        int    `json:"maxPages,omitempty" validate:"omitempty,min=1"`        // pages an llms.txt index links
	Timeout         string `json:"timeout,omitempty" validate:"omitempty,ttl"`           // per request
	MaxRedirects    int    `json:"maxRedirects,omitempty" validate:"omitempty,min=1,max=20"`
}

// DefaultTTL is how long an https source's content is trusted when its
// spec sets no ttl.
const DefaultTTL = 7 * 24 * time.Hour

// AudienceIgnore is PackageSpec.Audience when a package's documents are
// installed whatever their audience rules say.
const AudienceIgnore = "ignore"

// KindOf is s's kind: s.Kind, or git when it names none.
func (s PackageSpec) KindOf() string {
	if s.Kind == "" {
		return KindGit
	}
	return s.Kind
}

// TTLOf is how long s's fetched content is trusted (DefaultTTL when unset;
// the manifest's validation has checked the value).
func (s PackageSpec) TTLOf() time.Duration {
	if d, err := ParseDuration(s.TTL); err == nil && s.TTL != "" {
		return d
	}
	return DefaultTTL
}

// ParseDuration parses a ttl or timeout: a Go duration ("90s", "12h") or a
// whole number of days or weeks ("7d", "2w"). It must be positive.
func ParseDuration(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, unit := strings.TrimRight(s, "dw"), strings.TrimLeft(s, "0123456789"); n != s && (unit == "d" || unit == "w") {
		var k int
		k, err = strconv.Atoi(n)
		d = time.Duration(k) * 24 * time.Hour
		if unit == "w" {
			d *= 7
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s is not a duration: write it as 30m, 12h, 7d or 2w", safetext.Quote(s))
	}
	return d, nil
}

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
		"ttl":     func(s string) bool { _, err := ParseDuration(s); return err == nil },
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
// path, ref) and returns its problems, each with its field (no position:
// the spec did not come from a file).
func CheckSpec(s PackageSpec) []jsonfile.Error {
	if err := manifestValidator().Struct(&s); err != nil {
		return jsonfile.RuleErrors(err, manifestMessage)
	}
	return kindRules(s, "")
}

// kindRules checks what each kind allows: a dir source is a local path with
// no ref or sub-path; an https source an http(s) URL with no ref; the https
// settings only on https sources. field prefixes the fields named.
func kindRules(s PackageSpec, field string) []jsonfile.Error {
	var errs []jsonfile.Error
	bad := func(name, msg string) { errs = append(errs, jsonfile.Error{Field: field + name, Msg: msg}) }
	kind := s.KindOf()
	switch kind {
	case KindDir:
		if !naming.IsLocalPath(s.Source) {
			bad("source", safetext.Quote(s.Source)+" is not a local file or folder: a dir source is a path (relative to the project root, or absolute)")
		}
		if s.Path != "" {
			bad("path", "a dir source has no sub-path: name the folder itself as the source")
		}
		if s.Audience != "" {
			bad("audience", "a dir source is served in place, whatever its documents' audience rules say; audience applies to git and https sources")
		}
		if l := s.Limits; l != nil && (l.MaxBytes != 0 || l.MaxArchiveBytes != 0 || l.MaxPages != 0 || l.Timeout != "" || l.MaxRedirects != 0) {
			bad("limits", "a dir source has only the limits maxFiles and maxTotalBytes (the bounds of its walk)")
		}
	case KindHTTPS:
		if u, err := url.Parse(s.Source); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			bad("source", safetext.Quote(s.Source)+" is not an http or https URL")
		}
		if s.Limits != nil && s.Limits.MaxTotalBytes != 0 {
			bad("limits.maxTotalBytes", "only a dir source has maxTotalBytes (an https source has maxBytes per document and maxArchiveBytes)")
		}
	}
	if kind != KindGit && s.Ref != "" {
		bad("ref", "only a git source has a ref")
	}
	if kind != KindHTTPS {
		if s.TTL != "" {
			bad("ttl", "only an https source has a ttl")
		}
		if s.AllowPrivateNetwork {
			bad("allowPrivateNetwork", "only an https source fetches over the network this way")
		}
		if s.TokenEnv != "" {
			bad("tokenEnv", "only an https source sends a token this way (git uses your git credentials)")
		}
		if s.Limits != nil && kind != KindDir {
			bad("limits", "only https and dir sources have limits")
		}
	}
	return errs
}

// ParseManifest parses and validates a manifest; name is used in error
// messages. Every problem is reported at once, each with its line:column and
// field, as a *jsonfile.ErrorList.
func ParseManifest(name string, data []byte) (*Manifest, error) {
	var m Manifest
	err := jsonfile.Decode(name, data, &m, jsonfile.Options{
		Validator: manifestValidator(),
		Message:   manifestMessage,
		Check: func() []jsonfile.Error {
			errs := uniqueAliases(m.Packages)
			for i, p := range m.Packages {
				errs = append(errs, kindRules(p, fmt.Sprintf("packages[%d].", i))...)
			}
			return errs
		},
		Hint: manifestHint(name),
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

// uniqueAliases reports each package whose alias an earlier one has.
func uniqueAliases(pkgs []PackageSpec) []jsonfile.Error {
	var errs []jsonfile.Error
	first := map[string]int{}
	for i, p := range pkgs {
		if p.Alias == "" {
			continue
		}
		if j, dup := first[p.Alias]; dup {
			errs = append(errs, jsonfile.Error{
				Field: fmt.Sprintf("packages[%d].alias", i),
				Msg:   fmt.Sprintf("alias %s is already used by packages[%d]; aliases must be unique", safetext.Quote(p.Alias), j),
			})
			continue
		}
		first[p.Alias] = i
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
	Packages []PackageSpec `json:"packages" validate:"dive"`
	Allow    []string      `json:"allow,omitempty"`
}

// MarshalLocal encodes m's local packages (Local) and its allowances as
// .context/context.local.json, in the form MarshalManifest writes.
func MarshalLocal(m *Manifest) ([]byte, error) {
	c := LocalFile{Packages: []PackageSpec{}, Allow: m.Allow}
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
	if len(m.Allow) > 0 {
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
// manifest's rules, each allowance a clean absolute path, once. The specs
// come back with Local set.
func ParseLocal(name string, data []byte) (*LocalFile, error) {
	var f LocalFile
	err := jsonfile.Decode(name, data, &f, jsonfile.Options{
		Validator: manifestValidator(),
		Message:   manifestMessage,
		Check: func() []jsonfile.Error {
			errs := uniqueAliases(f.Packages)
			for i, p := range f.Packages {
				errs = append(errs, kindRules(p, fmt.Sprintf("packages[%d].", i))...)
			}
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
			return errs
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
