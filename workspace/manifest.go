package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/go-playground/validator/v10"
)

// badRefRE matches what git's check-ref-format forbids in a ref name.
var badRefRE = regexp.MustCompile(`[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^/|/$|\.$|\.lock$|^-`)

func newValidator() *validator.Validate {
	v := lockfile.NewValidator()
	if err := v.RegisterValidation("gitref", func(fl validator.FieldLevel) bool {
		return !badRefRE.MatchString(fl.Field().String())
	}); err != nil {
		panic(err) // a programming error in the tag name
	}
	return v
}

func manifestHint(name string) string {
	return fmt.Sprintf("fix %s by hand, or restore it with `git checkout %s`", name, name)
}

// ParseManifest parses and validates a manifest; name is used in error
// messages. Every problem is reported at once, each with its line:column and
// field, as a *jsonfile.ErrorList.
func ParseManifest(name string, data []byte) (*Manifest, error) {
	var m Manifest
	err := jsonfile.Decode(name, data, &m, jsonfile.Options{
		Validator: newValidator(),
		Message:   manifestMessage,
		Check:     func() []jsonfile.Error { return uniqueAliases(m.Packages) },
		Hint:      manifestHint(name),
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
	if fe.Tag() == "gitref" {
		return safetext.Quote(fmt.Sprint(fe.Value())) + " is not a valid git ref name"
	}
	return lockfile.ValidationMessage(fe)
}

// validationProblems words what newValidator returned for a value that did
// not come from a file (ctx add's arguments); data is not used.
func validationProblems(_ []byte, err error) []jsonfile.Error {
	return jsonfile.RuleErrors(err, manifestMessage)
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
	if c.Packages == nil {
		c.Packages = []PackageSpec{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	return buf.Bytes(), nil
}

func (w *Workspace) manifestPath() string { return filepath.Join(w.Dir(), ManifestName) }
func (w *Workspace) lockPath() string     { return filepath.Join(w.Dir(), LockName) }

// displayName is how files are named in messages: relative to the project.
func displayName(file string) string { return DirName + "/" + file }

func (w *Workspace) loadManifest() error {
	data, err := os.ReadFile(w.manifestPath())
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("%s: %w (run `ctx init` to start one)", w.root, ErrNoProject)
		}
		return fmt.Errorf("read manifest: %w", err)
	}
	m, err := ParseManifest(displayName(ManifestName), data)
	if err != nil {
		return err
	}
	w.manifest = *m
	return nil
}

func (w *Workspace) writeManifest(m *Manifest) error {
	data, err := MarshalManifest(m)
	if err != nil {
		return err
	}
	if err := w.fs.WriteFileAtomic(ManifestName, data, 0o644); err != nil {
		return err
	}
	w.manifest = *m
	w.manifest.Packages = append([]PackageSpec(nil), m.Packages...)
	return nil
}

func (w *Workspace) setRegistry(url string) error {
	m := w.Manifest()
	m.Registry = url
	return w.writeManifest(&m)
}

func (m *Manifest) spec(alias string) (PackageSpec, bool) {
	for _, p := range m.Packages {
		if p.Alias == alias {
			return p, true
		}
	}
	return PackageSpec{}, false
}

// writeLock writes the lock in its canonical form, atomically.
func (w *Workspace) writeLock(l *lockfile.Lock) error {
	data, err := l.Marshal()
	if err != nil {
		return err
	}
	return w.fs.WriteFileAtomic(LockName, data, 0o644)
}

// readLock reads the lock; a missing lock is an empty one.
func (w *Workspace) readLock() (*lockfile.Lock, error) {
	data, err := os.ReadFile(w.lockPath())
	if os.IsNotExist(err) {
		return &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	return lockfile.Parse(displayName(LockName), data)
}

// defaultAlias derives an alias from the last element of the sub-path, or
// else from the repository's name, with naming.AliasFrom.
func defaultAlias(source, p string) string {
	if p = strings.Trim(path.Clean("/"+filepath.ToSlash(p)), "/"); p != "" {
		return naming.AliasFrom(path.Base(p))
	}
	s := strings.TrimRight(filepath.ToSlash(source), "/")
	s = strings.TrimSuffix(s, ".git")
	if i := strings.LastIndexAny(s, "/:"); i >= 0 {
		s = s[i+1:]
	}
	return naming.AliasFrom(s)
}

// fetchURL is where a source is fetched from: relative local paths are
// relative to the project root.
func (w *Workspace) fetchURL(source string) string {
	if naming.IsLocalPath(source) && !filepath.IsAbs(source) {
		return filepath.Join(w.root, filepath.FromSlash(source))
	}
	return source
}

// cleanSpec normalizes what a user typed: path without ./ or trailing /,
// "." as "".
func cleanSpec(s PackageSpec) PackageSpec {
	s.Source = strings.TrimSpace(s.Source)
	s.Ref = strings.TrimSpace(s.Ref)
	if p := strings.TrimSpace(filepath.ToSlash(s.Path)); p != "" {
		p = path.Clean(p)
		p = strings.TrimPrefix(p, "./")
		if p == "." || p == "/" {
			p = ""
		}
		s.Path = p
	}
	return s
}
