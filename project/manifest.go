package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/jsonpos"
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
func CheckSpec(s PackageSpec) []jsonpos.Problem {
	if err := newValidator().Struct(&s); err != nil {
		return validationProblems(nil, err)
	}
	return nil
}

// ParseManifest parses and validates a manifest; name is used in error
// messages. Every problem is reported at once, each with its line:column and
// field, as a *jsonpos.List.
func ParseManifest(name string, data []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	one := func(pos jsonpos.Pos, msg string) error {
		return &jsonpos.List{File: name, Problems: []jsonpos.Problem{{Pos: pos, Msg: msg}}, Hint: manifestHint(name)}
	}
	if err := dec.Decode(&m); err != nil {
		pos, msg, ok := jsonpos.DecodeError(data, err)
		if !ok {
			if f, found := strings.CutPrefix(msg, "unknown field "); found {
				pos = jsonpos.FindKey(data, strings.Trim(f, `"`))
			}
		}
		return nil, one(pos, msg)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, one(jsonpos.Offset(data, dec.InputOffset()), "unexpected data after the top-level object")
	}
	probs := jsonpos.Duplicates(data)
	if err := newValidator().Struct(&m); err != nil {
		probs = append(probs, validationProblems(data, err)...)
	}
	first := map[string]int{}
	for i, p := range m.Packages {
		if p.Alias == "" {
			continue
		}
		if j, dup := first[p.Alias]; dup {
			field := fmt.Sprintf("packages[%d].alias", i)
			probs = append(probs, jsonpos.Problem{
				Pos:   jsonpos.Find(data, jsonpos.SplitPath(field)),
				Field: field,
				Msg:   fmt.Sprintf("alias %s is already used by packages[%d]; aliases must be unique", safetext.Quote(p.Alias), j),
			})
			continue
		}
		first[p.Alias] = i
	}
	if len(probs) > 0 {
		sortProblems(probs)
		return nil, &jsonpos.List{File: name, Problems: probs, Hint: manifestHint(name)}
	}
	if m.Packages == nil {
		m.Packages = []PackageSpec{}
	}
	return &m, nil
}

func validationProblems(data []byte, err error) []jsonpos.Problem {
	probs := lockfile.ValidationProblems(data, err)
	for i := range probs {
		if strings.HasSuffix(probs[i].Msg, `fails the "gitref" rule`) {
			probs[i].Msg = strings.TrimSuffix(probs[i].Msg, ` fails the "gitref" rule`) + " is not a valid git ref name"
		}
	}
	return probs
}

func sortProblems(p []jsonpos.Problem) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && less(p[j].Pos, p[j-1].Pos); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

func less(a, b jsonpos.Pos) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
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
