package indexer

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"gopkg.in/yaml.v2"
)

// Front matter normalisation. Every document's front matter (YAML, TOML or
// JSON) is kept for queries (find_documents, ctx find) with its types:
// strings, numbers, booleans, lists and maps as written; a date as a
// Date, whether the format has dates (TOML) or writes them as strings
// (YAML through yaml.v2, JSON): "2019-07-17" or an RFC 3339 time. Keys are
// kept as written. In the catalogue a date is stored as {"$date": "…"}
// (decodeMeta turns it back), so a string that looks like a date is never
// confused with one.
//
// A KEP's kep.yaml (the Kubernetes Enhancement Proposal convention) is the
// metadata of its folder's README.md: its fields come under the README's
// own front matter (which wins on a key both have).

// KEPMetaFile is the file whose fields are the metadata of its folder's
// README.md.
const KEPMetaFile = "kep.yaml"

// maxKEPMetaSize bounds a kep.yaml that is read (they are about 1 KB).
const maxKEPMetaSize = 256 << 10

// Date is a front-matter date or time. Its JSON is "2006-01-02" for a date
// and RFC 3339 for a time.
type Date struct {
	time.Time
	Clock bool // a time of day was given
}

func (d Date) String() string {
	if d.Clock {
		return d.Time.Format(time.RFC3339)
	}
	return d.Time.Format(time.DateOnly)
}

// MarshalJSON writes the date as a string.
func (d Date) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

var dateRE = lazyre.New(`^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$`)

// parseDate reads "2006-01-02", "2006-01-02T15:04:05Z07:00" and the
// variants YAML allows (a space for T, no seconds, no zone: UTC).
func parseDate(s string) (Date, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 || !dateRE().MatchString(s) {
		return Date{}, false
	}
	if len(s) == 10 {
		t, err := time.Parse(time.DateOnly, s)
		return Date{Time: t}, err == nil
	}
	s = strings.Replace(s, " ", "T", 1)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return Date{Time: t.UTC(), Clock: true}, true
		}
	}
	return Date{}, false
}

// maxMetaDepth and maxMetaItems bound what one document's front matter
// keeps (a hostile document could nest or repeat without end).
const (
	maxMetaDepth = 8
	maxMetaItems = 10000
)

// normalizeMeta returns front matter with typed values (see the top of
// this file); nil when m is empty.
func normalizeMeta(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	budget := maxMetaItems
	out, _ := normValue(m, 0, &budget).(map[string]any)
	if len(out) == 0 {
		return nil
	}
	return out
}

func normValue(v any, depth int, budget *int) any {
	*budget--
	if *budget < 0 || depth > maxMetaDepth {
		return nil
	}
	switch v := v.(type) {
	case nil, bool:
		return v
	case string:
		if d, ok := parseDate(v); ok {
			return d
		}
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case uint64:
		return float64(v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprint(v)
		}
		return v
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return f
		}
		return v.String()
	case time.Time:
		u := v.UTC()
		return Date{Time: u, Clock: u.Hour() != 0 || u.Minute() != 0 || u.Second() != 0 || u.Nanosecond() != 0}
	case Date:
		return v
	case []any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			out = append(out, normValue(e, depth+1, budget))
		}
		return out
	case []map[string]any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			out = append(out, normValue(e, depth+1, budget))
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = normValue(e, depth+1, budget)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = normValue(e, depth+1, budget)
		}
		return out
	}
	return fmt.Sprint(v)
}

// encodeMeta turns normalised metadata into what the catalogue stores:
// a Date becomes {"$date": "…"}.
func encodeMeta(v any) any {
	switch v := v.(type) {
	case Date:
		return map[string]any{"$date": v.String()}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = encodeMeta(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = encodeMeta(e)
		}
		return out
	}
	return v
}

// decodeMeta is encodeMeta's inverse, on what encoding/json decoded.
func decodeMeta(v any) any {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			v[i] = decodeMeta(e)
		}
		return v
	case map[string]any:
		if s, ok := v["$date"].(string); ok && len(v) == 1 {
			if d, ok := parseDate(s); ok {
				return d
			}
		}
		for k, e := range v {
			v[k] = decodeMeta(e)
		}
		return v
	}
	return v
}

// decodeKEPMeta reads a kep.yaml. Errors carry the 1-based line.
func decodeKEPMeta(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return m, nil
}

// metaKeys returns m's keys, sorted.
func metaKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// readSide reads a file read with a document, refusing one over max bytes
// (a repository is untrusted) and never through a symbolic link
// (internal/boundedfile, NoFollow; no wait on a fifo).
func readSide(p string, max int64) ([]byte, error) {
	data, _, err := boundedfile.Read(p, max, boundedfile.Options{NoFollow: true})
	var be *boundedfile.Error
	switch {
	case !errors.As(err, &be):
		return data, err
	case be.Kind == boundedfile.ErrNotRegular:
		return nil, fmt.Errorf("not a regular file")
	}
	return nil, fmt.Errorf("larger than %d KB", max>>10)
}

// mergeKEP adds the fields of a kep.yaml under the document's own front
// matter (whose keys win), with its typed links (see-also, replaces, …;
// reported at line 1 of the README, where its metadata is attached).
func (p *parsed) mergeKEP(b []byte, warn func(string)) {
	m, err := decodeKEPMeta(b)
	if err != nil {
		warn(err.Error())
		return
	}
	kep := normalizeMeta(m)
	if len(kep) == 0 {
		return
	}
	if p.Meta == nil {
		p.Meta = map[string]any{}
	}
	for k, v := range kep {
		if _, ok := p.Meta[k]; !ok {
			p.Meta[k] = v
		}
	}
	links := frontMatterLinks(m, 1)
	for i := range links {
		links[i].Label = KEPMetaFile
	}
	p.Links = append(links, p.Links...)
	if len(p.Links) > maxLinksPerDoc {
		p.Links = p.Links[:maxLinksPerDoc]
	}
}
