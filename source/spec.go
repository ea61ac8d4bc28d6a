package source

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
)

// DefaultKind is the kind of a spec or lock entry that names none: git, as
// every manifest and lock before kinds existed.
const DefaultKind = lockfile.KindGit

// Spec is one package a project wants: an entry of the manifest's
// "packages" (project.PackageSpec is this type). Which fields a spec of a
// kind allows or needs is its Kind's CheckSpec.
type Spec struct {
	Alias  string `json:"alias" validate:"required,alias"`
	Kind   string `json:"kind,omitempty"`                              // "" = git; one of the kinds (source/kinds)
	Source string `json:"source" validate:"required"`                  // git URL or repository path, a local file or folder (dir), or an http(s) URL; a relative path is relative to the project root
	Path   string `json:"path,omitempty" validate:"omitempty,relpath"` // git: sub-path inside the repository; https: folder inside an archive
	Ref    string `json:"ref,omitempty" validate:"omitempty,gitref"`   // git: branch, tag or commit; "" = the remote's default branch
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
	MaxFiles        int    `json:"maxFiles,omitempty" validate:"omitempty,min=1"`        // files and the folders they make in an archive or an llms.txt's pages (webdoc.Layout); dir: files and folders walked (DefaultDirMaxFiles)
	MaxTotalBytes   int64  `json:"maxTotalBytes,omitempty" validate:"omitempty,min=1"`   // dir: all its documents together (DefaultDirMaxBytes)
	MaxPages        int    `json:"maxPages,omitempty" validate:"omitempty,min=1"`        // pages an llms.txt index links
	Timeout         string `json:"timeout,omitempty" validate:"omitempty,ttl"`           // per request
	MaxRedirects    int    `json:"maxRedirects,omitempty" validate:"omitempty,min=1,max=20"`
}

// DefaultTTL is how long an https source's content is trusted when its
// spec sets no ttl.
const DefaultTTL = 7 * 24 * time.Hour

// KindOf is s's kind: s.Kind, or git when it names none.
func (s Spec) KindOf() string {
	if s.Kind == "" {
		return DefaultKind
	}
	return s.Kind
}

// TTLOf is how long s's fetched content is trusted (DefaultTTL when unset;
// the manifest's validation has checked the value).
func (s Spec) TTLOf() time.Duration {
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
		day := 24 * time.Hour
		if unit == "w" {
			day *= 7
		}
		var k int64
		k, err = strconv.ParseInt(n, 10, 64)
		if k > math.MaxInt64/int64(day) {
			k = 0 // more than a duration holds: not one (review18a: it wrapped)
		}
		d = time.Duration(k) * day
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s is not a duration: write it as 30m, 12h, 7d or 2w", safetext.Quote(s))
	}
	return d, nil
}
