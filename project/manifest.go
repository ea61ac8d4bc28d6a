package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/go-playground/validator/v10"
)

// Manifest is .context/context.config.json: the project's intent. Committed.
type Manifest struct {
	Registry string        `json:"registry,omitempty"`
	Project  string        `json:"project,omitempty"`
	Index    IndexSettings `json:"index"`
	Packages []PackageSpec `json:"packages" validate:"dive"`
}

// IndexSettings configure INDEX.md and search.
type IndexSettings struct {
	BudgetTokens int `json:"budgetTokens,omitempty" validate:"omitempty,min=500,max=1000000"` // 0 = indexer.DefaultBudgetTokens
}

// PackageSpec is one package the project wants.
type PackageSpec struct {
	Alias  string `json:"alias" validate:"required,alias"`
	Source string `json:"source" validate:"required"`                  // git URL or local repository path (relative: to the project root)
	Path   string `json:"path,omitempty" validate:"omitempty,relpath"` // sub-path inside the repository
	Ref    string `json:"ref,omitempty" validate:"omitempty,gitref"`   // branch, tag or commit; "" = the remote's default branch
}

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

// CheckSpec validates one spec by the manifest's rules (alias, source,
// path, ref) and returns its problems, each with its field (no position:
// the spec did not come from a file).
func CheckSpec(s PackageSpec) []jsonfile.Error {
	if err := newValidator().Struct(&s); err != nil {
		return jsonfile.RuleErrors(err, manifestMessage)
	}
	return nil
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
