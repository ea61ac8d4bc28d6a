package indexer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v2"
)

// maxFileSize is the largest markdown file ctx parses; bigger files are
// skipped with a note (they are almost always generated dumps).
const maxFileSize = 2 << 20

// isMarkdown reports whether name has a markdown extension.
func isMarkdown(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// skipReason says why content cannot be indexed, or "" when it can.
func skipReason(size int64, head []byte) string {
	if size > maxFileSize {
		return fmt.Sprintf("larger than %d MB", maxFileSize>>20)
	}
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary content (NUL bytes)"
	}
	return ""
}

// normalize returns content as valid UTF-8 without a byte-order mark, with
// "\n" line ends (CRLF and lone CR become LF).
func normalize(content []byte) string {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	s := string(content)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// splitLines splits normalized text into lines; a final newline does not
// start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// frontMatter is the metadata ctx reads from a document's front matter.
type frontMatter struct {
	Title   string
	Summary string
	Tags    []string
	Type    string
}

// fmBlock locates a front matter block. Lines [0, end) belong to it; the
// body starts at line end (0-based). format is "yaml", "toml" or "json";
// "" means there is none.
type fmBlock struct {
	format string
	end    int
	raw    string // the block without its delimiters
	first  int    // 0-based line of raw's first line
}

// findFrontMatter detects YAML (---), TOML (+++) and JSON ({ … }) front
// matter at the top of lines. An opening delimiter without a closing one is
// reported as an error and the whole file is treated as body.
func findFrontMatter(lines []string) (fmBlock, error) {
	if len(lines) == 0 {
		return fmBlock{}, nil
	}
	first := strings.TrimRight(lines[0], " \t")
	var closeDelims []string
	var format string
	switch first {
	case "---":
		format, closeDelims = "yaml", []string{"---", "..."}
	case "+++":
		format, closeDelims = "toml", []string{"+++"}
	default:
		if first == "{" {
			// JSON front matter ends with a line that is just "}".
			for i := 1; i < len(lines) && i < 1000; i++ {
				if strings.TrimRight(lines[i], " \t") == "}" {
					return fmBlock{format: "json", end: i + 1, raw: strings.Join(lines[:i+1], "\n"), first: 0}, nil
				}
			}
			return fmBlock{}, fmt.Errorf("line 1: JSON front matter opened with { but no closing } line")
		}
		return fmBlock{}, nil
	}
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		for _, d := range closeDelims {
			if l == d {
				return fmBlock{format: format, end: i + 1, raw: strings.Join(lines[1:i], "\n"), first: 1}, nil
			}
		}
	}
	if format == "yaml" {
		// A lone --- at the top with no closing line is a thematic break,
		// not front matter; nothing to warn about unless it looks like YAML.
		if len(lines) > 1 && yamlKeyRE.MatchString(lines[1]) {
			return fmBlock{}, fmt.Errorf("line 1: front matter opened with --- but never closed (add a closing --- line)")
		}
		return fmBlock{}, nil
	}
	return fmBlock{}, fmt.Errorf("line 1: TOML front matter opened with +++ but never closed (add a closing +++ line)")
}

var yamlKeyRE = regexp.MustCompile(`^[A-Za-z_][\w-]*:(\s|$)`)

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// decodeFrontMatter decodes b. Errors carry the 1-based file line.
func decodeFrontMatter(b fmBlock) (frontMatter, error) {
	var m map[string]any
	switch b.format {
	case "yaml":
		var ym map[string]any
		if err := yaml.Unmarshal([]byte(b.raw), &ym); err != nil {
			msg := err.Error()
			line := b.first + 1
			if sm := yamlLineRE.FindStringSubmatchIndex(msg); sm != nil {
				n, _ := strconv.Atoi(msg[sm[2]:sm[3]])
				line = b.first + n
				msg = strings.TrimSpace(msg[:sm[0]] + msg[sm[1]:])
				msg = strings.TrimPrefix(strings.TrimPrefix(msg, "yaml:"), " :")
				msg = strings.TrimSpace(strings.TrimPrefix(msg, ":"))
			}
			return frontMatter{}, fmt.Errorf("line %d: invalid YAML front matter: %s", line, msg)
		}
		m = ym
	case "toml":
		if _, err := toml.Decode(b.raw, &m); err != nil {
			line := b.first + 1
			msg := err.Error()
			if sm := regexp.MustCompile(`[Ll]ine (\d+)`).FindStringSubmatch(msg); sm != nil {
				n, _ := strconv.Atoi(sm[1])
				line = b.first + n
			}
			return frontMatter{}, fmt.Errorf("line %d: invalid TOML front matter: %s", line, msg)
		}
	case "json":
		dec := json.NewDecoder(strings.NewReader(b.raw))
		if err := dec.Decode(&m); err != nil {
			line := b.first + 1
			var se *json.SyntaxError
			if asSyntax(err, &se) {
				line = b.first + 1 + strings.Count(b.raw[:min(int(se.Offset), len(b.raw))], "\n")
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
	fm.Tags = tagList(m["tags"])
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
