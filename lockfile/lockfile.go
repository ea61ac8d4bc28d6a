package lockfile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-playground/validator/v10"
)

var hexRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ValidHash reports whether s is an "h1:" hash: base64 of 32 bytes.
func ValidHash(s string) bool {
	rest, ok := strings.CutPrefix(s, "h1:")
	if !ok {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	return err == nil && len(b) == 32
}

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
	must(v.RegisterValidation("sha1hex", func(fl validator.FieldLevel) bool { return hexRE.MatchString(fl.Field().String()) }))
	must(v.RegisterValidation("h1", func(fl validator.FieldLevel) bool { return ValidHash(fl.Field().String()) }))
	return v
}

// ValidationMessage words a failed rule of [NewValidator]'s own tags, and
// returns "" for the others (see jsonfile.RuleMessage).
func ValidationMessage(fe validator.FieldError) string {
	val := safetext.Quote(fmt.Sprint(fe.Value()))
	switch fe.Tag() {
	case "alias":
		return fmt.Sprintf("%s is not a valid alias (1-64 letters, digits, '.', '_' or '-', starting with a letter or digit)", val)
	case "relpath":
		return fmt.Sprintf("%s must be a clean relative path inside the repository (no leading '/', no '..', no '.git', no trailing '/')", val)
	case "sha1hex":
		return fmt.Sprintf("%s must be 40 lower-case hexadecimal digits", val)
	case "h1":
		return fmt.Sprintf("%s must be an h1: hash (h1: and base64 of a SHA-256)", val)
	}
	return ""
}

func hint(name string, data []byte) string {
	if bytes.Contains(data, []byte("\n<<<<<<< ")) || bytes.HasPrefix(data, []byte("<<<<<<< ")) {
		return fmt.Sprintf("it has git merge conflict markers: take one side with `git checkout --theirs %s` (or --ours) and run `ctx install`, or delete it and run `ctx install` to lock again", name)
	}
	return fmt.Sprintf("restore it with `git checkout %s`, or delete it and run `ctx install` to lock again", name)
}

// Parse parses a lockfile's bytes; name is used in error messages
// ("context.lock:3:14: …"). All problems are reported at once.
func Parse(name string, data []byte) (*Lock, error) {
	var l Lock
	err := jsonfile.Decode(name, data, &l, jsonfile.Options{
		Validator: NewValidator(),
		Message:   ValidationMessage,
		Check: func() []jsonfile.Error {
			if l.Version > Version {
				return []jsonfile.Error{{Field: "version", Msg: fmt.Sprintf("format version %d is newer than this ctx understands (%d): upgrade ctx", l.Version, Version)}}
			}
			return nil
		},
		Hint: hint(name, data),
	})
	if err != nil {
		return nil, err
	}
	if l.Packages == nil {
		l.Packages = map[string]Entry{}
	}
	return &l, nil
}

// Read reads and parses the lockfile at path. A missing file returns an error
// wrapping fs.ErrNotExist.
func Read(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Marshal returns the canonical bytes: keys sorted, two-space indent, final
// newline. The same Lock always gives the same bytes.
func (l *Lock) Marshal() ([]byte, error) {
	c := Lock{Version: l.Version, Packages: make(map[string]Entry, len(l.Packages))}
	if c.Version == 0 {
		c.Version = Version
	}
	for k, e := range l.Packages {
		if !e.Updated.IsZero() {
			e.Updated = e.Updated.UTC().Truncate(time.Second)
		}
		c.Packages[k] = e
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil { // maps are encoded with sorted keys
		return nil, fmt.Errorf("encode lockfile: %w", err)
	}
	return buf.Bytes(), nil
}

// Write writes l to path atomically (temp file in the same dir, fsync, rename),
// and leaves the file untouched when its bytes would not change.
func Write(path string, l *Lock) error {
	data, err := l.Marshal()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, data, 0o644)
}

// WriteFileAtomic writes data to name through a temp file in the same
// directory, fsync and rename, so readers see the old or the new bytes, never
// a mix. When name already holds exactly data, nothing is written.
func WriteFileAtomic(name string, data []byte, perm fs.FileMode) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return nil
	}
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	SyncDir(dir)
	return nil
}

// SyncDir flushes a directory's entries (after a rename) where the system
// supports it; errors are ignored, as some file systems refuse.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
