package indexer

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// Front-matter queries (find_documents, ctx find). A filter ("where") is a
// JSON object: every key must match (AND). A key names a front-matter
// field (a kep.yaml field for a KEP's README); "a.b" reaches into a map;
// title, tags and type fall back to what the catalogue says when the front
// matter has none. A key's condition is a value (equality) or an object of
// operators:
//
//	{"status": "implementable"}                 equal (strings ignore case; a list matches when one element does)
//	{"stage": {"$in": ["alpha", "beta"]}}       equal to one of the values
//	{"kep-number": {"$gt": 1000, "$lt": 2000}}  numbers and dates ("2024-01-31"); also $gte, $lte
//	{"creation-date": {"$between": ["2020-01-01", "2020-12-31"]}}  inclusive
//	{"see-also": {"$exists": true}}             the key is there (false: it is not)
//	{"authors": {"$contains": "@thockin"}}      a list holds the value (a string holds it as a substring)
//
// A value compares with a date field as a date, with a number field as a
// number ("135" equals 135).

// Find limits.
const (
	DefaultFindLimit = 50
	MaxFindLimit     = 500
)

// FindQuery is a front-matter query.
type FindQuery struct {
	Where    map[string]any
	Packages []string // any of these aliases (empty: all)
	Tags     []string // documents with any of these tags (empty: all)
	Limit    int      // 0: DefaultFindLimit; at most MaxFindLimit
	Cursor   string   // NextCursor of the previous page
}

// FindResult is one page of matching documents, by package then path.
type FindResult struct {
	Documents  []DocMeta `json:"documents" jsonschema:"the matching documents of this page, by package then path"`
	Total      int       `json:"total" jsonschema:"how many documents match, on every page"`
	NextCursor string    `json:"nextCursor,omitempty" jsonschema:"give it as cursor for the next page; none on the last"`
}

var operators = []string{"$in", "$gt", "$gte", "$lt", "$lte", "$between", "$exists", "$contains", "$eq"}

// CheckWhere validates a filter, saying which key and operator is wrong.
func CheckWhere(where map[string]any) error {
	for _, k := range metaKeys(where) {
		if strings.TrimSpace(k) == "" {
			return fmt.Errorf("where: an empty key; name a front-matter field, such as \"status\"")
		}
		c, ok := where[k].(map[string]any)
		if !ok || !isOperatorMap(c) {
			continue
		}
		for _, op := range metaKeys(c) {
			v := c[op]
			switch op {
			case "$in":
				if _, ok := v.([]any); !ok {
					return fmt.Errorf("where.%s: $in takes a list of values, as in {\"$in\": [\"alpha\", \"beta\"]}", k)
				}
			case "$between":
				l, ok := v.([]any)
				if !ok || len(l) != 2 {
					return fmt.Errorf("where.%s: $between takes two values, as in {\"$between\": [\"2020-01-01\", \"2020-12-31\"]}", k)
				}
				for _, e := range l {
					if _, ok := orderable(e); !ok {
						return fmt.Errorf("where.%s: $between compares numbers or dates (2006-01-02), not %s", k, describe(e))
					}
				}
			case "$gt", "$gte", "$lt", "$lte":
				if _, ok := orderable(v); !ok {
					return fmt.Errorf("where.%s: %s compares numbers or dates (2006-01-02), not %s", k, op, describe(v))
				}
			case "$exists":
				if _, ok := v.(bool); !ok {
					return fmt.Errorf("where.%s: $exists takes true or false", k)
				}
			case "$contains", "$eq":
			default:
				return fmt.Errorf("where.%s: unknown operator %q; use one of %s", k, op, strings.Join(operators, ", "))
			}
		}
	}
	return nil
}

func isOperatorMap(m map[string]any) bool {
	if len(m) == 0 {
		return false
	}
	for k := range m {
		if !strings.HasPrefix(k, "$") {
			return false
		}
	}
	return true
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}

// ctxEvery is how many items a reader's walk of the corpus (Find,
// Neighbours, Tags) goes between two checks of its context.
const ctxEvery = 256

// Find returns the documents whose metadata matches q. A package the index
// does not have is an error wrapping ErrUnknownPackage that names the
// indexed ones; then a tag filter no indexed document has is one wrapping
// ErrUnknownTag (checkTags), as in Search. The walk of the candidates stops
// with ctx's error when ctx ends (an MCP call's bound, own20).
func (r *Reader) Find(ctx context.Context, q FindQuery) (FindResult, error) {
	if err := CheckWhere(q.Where); err != nil {
		return FindResult{}, fmt.Errorf("indexer: %w", err)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultFindLimit
	}
	limit = min(limit, MaxFindLimit)
	off := 0
	if q.Cursor != "" {
		n, err := strconv.Atoi(q.Cursor)
		if err != nil || n < 0 {
			return FindResult{}, fmt.Errorf("indexer: cursor %s: not one this server gave; start again without a cursor", safetext.Quote(q.Cursor))
		}
		off = n
	}
	r.mu.Lock()
	g, _, err := r.graphLocked()
	if err == nil {
		err = checkPackages(q.Packages, g.aliases())
	}
	r.mu.Unlock()
	if err != nil {
		return FindResult{}, err
	}
	if err := r.checkTags(q.Tags); err != nil { // it takes r.mu itself
		return FindResult{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if g, _, err = r.graphLocked(); err != nil {
		return FindResult{}, err
	}
	keys := metaKeys(q.Where)
	where := prepareWhere(q.Where)
	res := FindResult{Documents: []DocMeta{}}
	for i, k := range g.candidates(where) {
		if i%ctxEvery == 0 && ctx.Err() != nil {
			return FindResult{}, ctx.Err()
		}
		if len(q.Packages) > 0 && !contains(q.Packages, k.alias) {
			continue
		}
		rec := g.recs[k]
		if len(q.Tags) > 0 && !anyTag(rec.Tags, q.Tags) {
			continue
		}
		ok := true
		for _, key := range keys {
			v, present := lookupField(rec, key)
			if !matchCond(v, present, where[key]) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		res.Total++
		if res.Total > off && len(res.Documents) < limit {
			res.Documents = append(res.Documents, g.meta(k))
		}
	}
	if off+len(res.Documents) < res.Total {
		res.NextCursor = strconv.Itoa(off + len(res.Documents))
	}
	return res, nil
}

// Fields returns the names a where filter can match: each front-matter
// key that some indexed document has (of packages, when any are named,
// and with one of tags, when any are named: a filter on the fields of
// documents the other filters leave out matches nothing), and title, type
// and tags (the catalogue's), sorted. A filter's key not among them
// matches nothing.
func (r *Reader) Fields(packages, tags []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, _, err := r.graphLocked()
	if err != nil {
		return nil, err
	}
	return g.fields(packages, tags), nil
}

// fields is Fields on g: one pass over the keys (a front matter's keys
// may be as many as the documents).
func (g *graph) fields(packages, tags []string) []string {
	kept := func(d docKey) bool {
		return (len(packages) == 0 || contains(packages, d.alias)) && (len(tags) == 0 || anyTag(g.recs[d].Tags, tags))
	}
	names := []string{"tags", "title", "type"}
	for k, docs := range g.withKey {
		switch k {
		case "tags", "title", "type":
			continue
		}
		if (len(packages) == 0 && len(tags) == 0) || slices.ContainsFunc(docs, kept) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

func anyTag(have, want []string) bool {
	for _, w := range want {
		for _, h := range have {
			if strings.EqualFold(h, strings.TrimSpace(w)) {
				return true
			}
		}
	}
	return false
}

// lookupField returns a document's field key ("a.b" reaches into maps).
func lookupField(rec *fileRecord, key string) (any, bool) {
	var m map[string]any
	if rec.Meta != nil {
		m = rec.typedMeta()
	}
	if v, ok := m[key]; ok {
		return v, true
	}
	if strings.Contains(key, ".") {
		var cur any = m
		for _, part := range strings.Split(key, ".") {
			mm, ok := cur.(map[string]any)
			if !ok {
				cur = nil
				break
			}
			if cur, ok = mm[part]; !ok {
				cur = nil
				break
			}
		}
		if cur != nil {
			return cur, true
		}
	}
	switch key {
	case "title":
		return rec.Title, rec.Title != ""
	case "type":
		return rec.Type, rec.Type != ""
	case "tags":
		if len(rec.Tags) == 0 {
			return nil, false
		}
		l := make([]any, len(rec.Tags))
		for i, t := range rec.Tags {
			l[i] = t
		}
		return l, true
	}
	return nil, false
}

// candidates returns the documents a filter can match: those that have one
// of its keys in their front matter, when a key's condition needs the key
// to be there (anything but $exists false, and but title, type and tags,
// which the catalogue supplies); else every document.
func (g *graph) candidates(where map[string]any) []docKey {
	var best []docKey
	found := false
	for key, cond := range where {
		switch key {
		case "title", "type", "tags":
			continue
		}
		if strings.Contains(key, ".") {
			continue // "a.b" may be a key of its own or reach into a
		}
		if c, ok := cond.(map[string]any); ok && isOperatorMap(c) {
			if e, ok := c["$exists"].(bool); ok && !e {
				continue
			}
		}
		if ks := g.withKey[key]; !found || len(ks) < len(best) {
			best, found = ks, true
		}
	}
	if !found {
		return g.order
	}
	return best
}

// prepareWhere returns a copy of where whose date strings are Dates, so
// that they are parsed once per query, not once per document.
func prepareWhere(where map[string]any) map[string]any {
	var prep func(v any) any
	prep = func(v any) any {
		switch v := v.(type) {
		case string:
			if d, ok := parseDate(v); ok {
				return d
			}
		case []any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = prep(e)
			}
			return out
		case map[string]any:
			if !isOperatorMap(v) {
				return v
			}
			out := make(map[string]any, len(v))
			for k, e := range v {
				out[k] = prep(e)
			}
			return out
		}
		return v
	}
	out := make(map[string]any, len(where))
	for k, v := range where {
		out[k] = prep(v)
	}
	return out
}

// matchCond reports whether a field's value v (present or not) meets cond.
func matchCond(v any, present bool, cond any) bool {
	c, ok := cond.(map[string]any)
	if !ok || !isOperatorMap(c) {
		return present && equalAny(v, cond)
	}
	for op, arg := range c {
		var ok bool
		switch op {
		case "$exists":
			ok = present == arg.(bool)
		case "$eq":
			ok = present && equalAny(v, arg)
		case "$in":
			for _, w := range arg.([]any) {
				if present && equalAny(v, w) {
					ok = true
					break
				}
			}
		case "$gt", "$gte", "$lt", "$lte":
			ok = present && anyElem(v, func(e any) bool {
				c, cmpOK := compare(e, arg)
				return cmpOK && (op == "$gt" && c > 0 || op == "$gte" && c >= 0 || op == "$lt" && c < 0 || op == "$lte" && c <= 0)
			})
		case "$between":
			b := arg.([]any)
			ok = present && anyElem(v, func(e any) bool {
				lo, ok1 := compare(e, b[0])
				hi, ok2 := compare(e, b[1])
				return ok1 && ok2 && lo >= 0 && hi <= 0
			})
		case "$contains":
			switch vv := v.(type) {
			case []any:
				for _, e := range vv {
					if equal(e, arg) {
						ok = true
						break
					}
				}
			case string:
				s, isStr := arg.(string)
				ok = isStr && strings.Contains(strings.ToLower(vv), strings.ToLower(s))
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// anyElem applies f to v, or to each element of a list v.
func anyElem(v any, f func(any) bool) bool {
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if f(e) {
				return true
			}
		}
		return false
	}
	return f(v)
}

// equalAny is equal, element-wise for a list field.
func equalAny(v, want any) bool {
	if _, isList := want.([]any); !isList {
		return anyElem(v, func(e any) bool { return equal(e, want) })
	}
	return equal(v, want)
}

// equal compares a field value with a query value (from JSON or the
// command line), in the field's type.
func equal(v, want any) bool {
	if d, ok := want.(Date); ok {
		if _, isDate := v.(Date); !isDate {
			want = d.String() // a date-like query value against a string, number or list
		}
	}
	switch v := v.(type) {
	case string:
		w, ok := want.(string)
		return ok && strings.EqualFold(strings.TrimSpace(v), strings.TrimSpace(w))
	case float64:
		f, ok := number(want)
		return ok && f == v
	case bool:
		switch w := want.(type) {
		case bool:
			return w == v
		case string:
			b, err := strconv.ParseBool(w)
			return err == nil && b == v
		}
	case Date:
		c, ok := compare(v, want)
		return ok && c == 0
	case nil:
		return want == nil
	case []any:
		w, ok := want.([]any)
		if !ok || len(w) != len(v) {
			return false
		}
		for i := range v {
			if !equal(v[i], w[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil && !math.IsNaN(f)
	}
	return 0, false
}

// orderable reports whether a query value is a number or a date.
func orderable(v any) (any, bool) {
	if s, ok := v.(string); ok {
		if d, ok := parseDate(s); ok {
			return d, true
		}
	}
	if f, ok := number(v); ok {
		return f, true
	}
	return nil, false
}

// compare orders a field value against a query value of the same kind: a
// number with a number, a date with a date (a date-only query value
// compares with a time by its day).
func compare(v, want any) (int, bool) {
	switch v := v.(type) {
	case float64:
		w, ok := number(want)
		if !ok {
			return 0, false
		}
		switch {
		case v < w:
			return -1, true
		case v > w:
			return 1, true
		}
		return 0, true
	case Date:
		w, ok := want.(Date)
		if !ok {
			s, isStr := want.(string)
			if !isStr {
				return 0, false
			}
			if w, ok = parseDate(s); !ok {
				return 0, false
			}
		}
		a, b := v.Time, w.Time
		if !w.Clock {
			a = time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
		}
		return a.Compare(b), true
	}
	return 0, false
}
