package lockfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/go-playground/validator/v10"
)

var hexRE = lazyre.New(`^[0-9a-f]{40}$`)

// IsObjectID reports whether s is a git object id as a lock writes it:
// 40 lower-case hexadecimal digits (a version 1 entry's commit and tree,
// and a git entry's rev and tree: source/gitsrc).
func IsObjectID(s string) bool { return hexRE().MatchString(s) }

// NewValidator returns a validator that knows the tags used by this package
// and others that share its rules: alias (naming.ValidAlias), relpath
// (naming.CheckFilePath), sha1hex, h1. Field names in errors are the JSON
// names.
func NewValidator() *validator.Validate {
	v := jsonfile.NewValidator()
	must := func(err error) {
		if err != nil {
			panic(err) // only on a programming error in the tag names below
		}
	}
	must(v.RegisterValidation("alias", func(fl validator.FieldLevel) bool { return naming.ValidAlias(fl.Field().String()) }))
	must(v.RegisterValidation("relpath", func(fl validator.FieldLevel) bool { return naming.CheckFilePath(fl.Field().String()) == nil }))
	must(v.RegisterValidation("sha1hex", func(fl validator.FieldLevel) bool { return hexRE().MatchString(fl.Field().String()) }))
	must(v.RegisterValidation("h1", func(fl validator.FieldLevel) bool { return treehash.ValidHash(fl.Field().String()) }))
	return v
}

// ValidationMessage words a failed rule of [NewValidator]'s own tags, and
// returns "" for the others (see jsonfile.RuleMessage).
func ValidationMessage(fe validator.FieldError) string {
	val := safetext.Quote(fmt.Sprint(fe.Value()))
	switch fe.Tag() {
	case "alias":
		return fmt.Sprintf("%s is not a valid alias (%s)", val, naming.AliasRule)
	case "relpath":
		return fmt.Sprintf("%s must be a clean relative path inside the repository (no leading '/', no '..', no '.git', no trailing '/')", val)
	case "sha1hex":
		return fmt.Sprintf("%s must be 40 lower-case hexadecimal digits", val)
	case "h1":
		return fmt.Sprintf("%s must be an h1: hash (h1: and base64 of a SHA-256)", val)
	}
	return ""
}

// Parse parses a lockfile's bytes; name is used in error messages
// ("context.lock:3:14: …"). All problems are reported at once. Both
// format versions are read (see the package doc). pin checks each
// version 2 entry's kind and what it pins (project.ParseLock passes
// source/kinds.CheckPin); nil checks neither, for a reader of locks ctx
// wrote itself (Read, tests, benchmarks).
func Parse(name string, data []byte, pin PinCheck) (*Lock, error) {
	data = jsonfile.TrimBOM(data)
	var head struct {
		Version int `json:"version"`
	}
	_ = json.Unmarshal(data, &head) // a bad file gets its errors from the strict decode below
	if head.Version <= Version1 {
		var w wireV1
		if err := decode(name, data, &w, func() []jsonfile.Error { return caseAliases(slices.Collect(maps.Keys(w.Packages))) }); err != nil {
			return nil, err
		}
		l := &Lock{Version: w.Version, Packages: make(map[string]Entry, len(w.Packages))}
		for alias, e := range w.Packages {
			l.Packages[alias] = Entry{Kind: KindGit, Source: e.Source, Path: e.Path, Ref: e.Ref, Rev: e.Commit, Tree: e.Tree, Hash: e.Hash, Audience: e.Audience, Withheld: e.Withheld, Updated: e.Updated}
		}
		return l, nil
	}
	if head.Version > Version {
		// A newer ctx wrote it: that is the one problem, whatever its
		// entries look like (they need not be version 2's), and deleting
		// it would lose what it locks.
		return nil, jsonfile.Decode(name, data, &head, jsonfile.Options{
			AllowUnknown: true,
			Check: func() []jsonfile.Error {
				return []jsonfile.Error{{Field: "version", Msg: fmt.Sprintf("format version %d is newer than this ctx understands (%d): upgrade ctx", head.Version, Version)}}
			},
			Hint: "a newer ctx wrote it: upgrade ctx (go install github.com/ctx-dev/ctx/cmd/ctx@latest, or a release binary), then run the command again",
		})
	}
	var w wireV2
	err := decode(name, data, &w, func() []jsonfile.Error {
		errs := caseAliases(slices.Collect(maps.Keys(w.Packages)))
		if pin == nil {
			return errs
		}
		return append(errs, checkPins(w.Packages, pin)...)
	})
	if err != nil {
		return nil, err
	}
	l := &Lock{Version: w.Version, Packages: make(map[string]Entry, len(w.Packages))}
	for alias, e := range w.Packages {
		l.Packages[alias] = Entry(e)
	}
	return l, nil
}

// wireV1 and wireV2 are the two formats as they are in the file.
type wireV1 struct {
	Version  int                    `json:"version" validate:"min=1"`
	Packages map[string]wireEntryV1 `json:"packages" validate:"dive,keys,alias,endkeys"`
}

type wireEntryV1 struct {
	Source string `json:"source" validate:"required"`
	Path   string `json:"path,omitempty" validate:"omitempty,relpath"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit" validate:"required,sha1hex"`
	Tree   string `json:"tree" validate:"required,sha1hex"`
	Hash   string `json:"hash" validate:"required,h1"`
	// Audience and Withheld: see Entry.
	Audience string    `json:"audience,omitempty"`
	Withheld int       `json:"withheld,omitempty" validate:"min=0"`
	Updated  time.Time `json:"updated"`
}

type wireV2 struct {
	Version  int                    `json:"version" validate:"min=1"`
	Packages map[string]wireEntryV2 `json:"packages" validate:"dive,keys,alias,endkeys"`
}

// wireEntryV2 has Entry's fields in Entry's order, so the two convert.
type wireEntryV2 struct {
	Kind         string    `json:"kind" validate:"required"`
	Source       string    `json:"source" validate:"required"`
	Path         string    `json:"path,omitempty" validate:"omitempty,relpath"`
	Ref          string    `json:"ref,omitempty"`
	Rev          string    `json:"rev" validate:"required"`
	Tree         string    `json:"tree,omitempty"`
	Hash         string    `json:"hash" validate:"required,h1"`
	Audience     string    `json:"audience,omitempty"`
	Withheld     int       `json:"withheld,omitempty" validate:"min=0"`
	URL          string    `json:"url,omitempty"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"lastModified,omitempty"`
	Fetched      time.Time `json:"fetched,omitzero"`
	Updated      time.Time `json:"updated"`
}

// caseAliases reports the aliases that are one folder on macOS and
// Windows with another (naming.AliasKey: "PUB" and "pub"), as the
// manifest does (project's uniqueAliases): a lock with both would make
// install remove one package's folder as the other (red19). Each is
// named beside the first of its group in sorted order.
func caseAliases(aliases []string) []jsonfile.Error {
	sort.Strings(aliases)
	first := map[string]string{}
	var errs []jsonfile.Error
	for _, a := range aliases {
		k := naming.AliasKey(a)
		if f, dup := first[k]; dup {
			errs = append(errs, jsonfile.Error{Field: fmt.Sprintf("packages[%s]", a),
				Msg: fmt.Sprintf("alias %s is the folder of %s on macOS and Windows, which ignore case; aliases must differ in more than case", safetext.Quote(a), safetext.Quote(f))})
			continue
		}
		first[k] = a
	}
	return errs
}

// PinCheck checks a version 2 entry's kind and what it pins (its rev and
// tree): each kind's rule, which is the kind's own (source/kinds.CheckPin).
// Its errors name the fields "kind", "rev" and "tree"; Parse puts the
// entry's place in front.
type PinCheck func(kind, rev, tree string) []jsonfile.Error

// checkPins checks each version 2 entry with pin.
func checkPins(pkgs map[string]wireEntryV2, pin PinCheck) []jsonfile.Error {
	var errs []jsonfile.Error
	for alias, e := range pkgs {
		for _, err := range pin(e.Kind, e.Rev, e.Tree) {
			err.Field = fmt.Sprintf("packages[%s].%s", alias, err.Field)
			errs = append(errs, err)
		}
	}
	return errs
}

// lockValidator is the lock's validator, built once per process (a
// validator is safe for concurrent use, and caches what it learns of a
// struct).
var lockValidator = sync.OnceValue(NewValidator)

func decode(name string, data []byte, v any, check func() []jsonfile.Error) error {
	return jsonfile.Decode(name, data, v, jsonfile.Options{
		Validator: lockValidator(),
		Message:   ValidationMessage,
		Check:     check,
		Hint:      fmt.Sprintf("restore it with `git checkout %s`, or delete it and run `ctx install` to lock again", name),
		// The lock is ctx's to write: either side, completed by install.
		ConflictHint: fmt.Sprintf("take one side with `git checkout --theirs %s` (or --ours), then run `ctx install`: it locks what the manifest names and the side lacks", name),
	})
}

// Marshal returns the canonical bytes: keys sorted, two-space indent, final
// newline. The same Lock always gives the same bytes. The format is version
// 1 while every entry is git, else version 2 (l.Version is not looked at).
func (l *Lock) Marshal() ([]byte, error) {
	version := Version1
	for _, e := range l.Packages {
		if !e.IsGit() {
			version = Version
		}
	}
	stamp := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return t.UTC().Truncate(time.Second)
	}
	var v any
	if version == Version1 {
		w := wireV1{Version: version, Packages: make(map[string]wireEntryV1, len(l.Packages))}
		for k, e := range l.Packages {
			w.Packages[k] = wireEntryV1{Source: e.Source, Path: e.Path, Ref: e.Ref, Commit: e.Rev, Tree: e.Tree, Hash: e.Hash, Audience: e.Audience, Withheld: e.Withheld, Updated: stamp(e.Updated)}
		}
		v = &w
	} else {
		w := wireV2{Version: version, Packages: make(map[string]wireEntryV2, len(l.Packages))}
		for k, e := range l.Packages {
			if e.Kind == "" {
				e.Kind = KindGit
			}
			e.Fetched, e.Updated = stamp(e.Fetched), stamp(e.Updated)
			w.Packages[k] = wireEntryV2(e)
		}
		v = &w
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil { // maps are encoded with sorted keys
		return nil, fmt.Errorf("encode lockfile: %w", err)
	}
	return buf.Bytes(), nil
}
