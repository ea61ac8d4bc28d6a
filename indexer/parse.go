package indexer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"gopkg.in/yaml.v2"
)

// maxFileSize is the largest markdown file ctx parses; bigger files are
// skipped with a note (they are almost always generated dumps).
const maxFileSize = 2 << 20

// skipReason says why content cannot be indexed, or "" when it can.
func skipReason(size int64, head []byte) string {
	if size > maxFileSize {
		return fmt.Sprintf("larger than %d MB", maxFileSize>>20)
	}
	if markdown.IsBinary(head) {
		return "binary content (NUL bytes)"
	}
	return ""
}

// frontMatter is the metadata ctx reads from a document's front matter.
type frontMatter struct {
	Title   string
	Summary string
	Tags    []string
	Type    string
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// decodeFrontMatter decodes b. Errors carry the 1-based file line.
func decodeFrontMatter(b markdown.FrontMatter) (frontMatter, error) {
	var m map[string]any
	switch b.Format {
	case "yaml":
		var ym map[string]any
		if err := yaml.Unmarshal([]byte(b.Raw), &ym); err != nil {
			msg := err.Error()
			line := b.First + 1
			if sm := yamlLineRE.FindStringSubmatchIndex(msg); sm != nil {
				n, _ := strconv.Atoi(msg[sm[2]:sm[3]])
				line = b.First + n
				msg = strings.TrimSpace(msg[:sm[0]] + msg[sm[1]:])
				msg = strings.TrimPrefix(strings.TrimPrefix(msg, "yaml:"), " :")
				msg = strings.TrimSpace(strings.TrimPrefix(msg, ":"))
			}
			return frontMatter{}, fmt.Errorf("line %d: invalid YAML front matter: %s", line, msg)
		}
		m = ym
	case "toml":
		if _, err := toml.Decode(b.Raw, &m); err != nil {
			line := b.First + 1
			msg := err.Error()
			if sm := regexp.MustCompile(`[Ll]ine (\d+)`).FindStringSubmatch(msg); sm != nil {
				n, _ := strconv.Atoi(sm[1])
				line = b.First + n
			}
			return frontMatter{}, fmt.Errorf("line %d: invalid TOML front matter: %s", line, msg)
		}
	case "json":
		dec := json.NewDecoder(strings.NewReader(b.Raw))
		if err := dec.Decode(&m); err != nil {
			line := b.First + 1
			var se *json.SyntaxError
			if asSyntax(err, &se) {
				line = b.First + 1 + strings.Count(b.Raw[:min(int(se.Offset), len(b.Raw))], "\n")
			}
			return frontMatter{}, fmt.Errorf("line %d: invalid JSON front matter: %v", line, err)
		}
	default:
		return frontMatter{}, nil
	}
	var fm frontMatter
	fm.Title = scalar(m["title"])
	fm.Summary = scalar(m["summary"])
	if fm.Summary == "" {
		fm.Summary = scalar(m["description"])
	}
	fm.Type = scalar(m["type"])
	fm.Tags = cleanTags(append(tagList(m["tags"]), tagList(m["keywords"])...))
	return fm, nil
}

func asSyntax(err error, se **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*se = s
	}
	return ok
}

// scalar renders a front matter value as one line of text; maps and lists
// give "".
func scalar(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return collapseSpace(v)
	case bool, int, int64, float64, uint64:
		return fmt.Sprint(v)
	}
	return ""
}

// tagList accepts a list of scalars or a comma-separated string.
func tagList(v any) []string {
	var raw []string
	switch v := v.(type) {
	case string:
		raw = strings.Split(v, ",")
	case []any:
		for _, e := range v {
			raw = append(raw, scalar(e))
		}
	}
	return cleanTags(raw)
}

// cleanTags trims, lower-cases, de-duplicates and sorts tags.
func cleanTags(raw []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range raw {
		t = strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(t), "`#*_\"'[]")))
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
