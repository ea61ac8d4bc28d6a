package markdown

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v2"
)

// FrontMatter locates a front matter block. Lines [0, End) belong to it;
// the body starts at line End (0-based). Format is "yaml", "toml" or
// "json"; "" means there is none. Decode decodes the block.
type FrontMatter struct {
	Format string
	End    int
	Raw    string // the block without its delimiters (JSON keeps its braces)
	First  int    // 0-based line of Raw's first line
}

var yamlKeyRE = lazyre.New(`^[A-Za-z_][\w-]*:(\s|$)`)

// FindFrontMatter detects YAML (---), TOML (+++) and JSON ({ … }) front
// matter at the top of lines. An opening delimiter without a closing one is
// reported as an error ("line 1: …") and the whole document is body; a lone
// --- whose next line does not look like YAML is a thematic break, not an
// error.
func FindFrontMatter(lines []string) (FrontMatter, error) {
	if len(lines) == 0 {
		return FrontMatter{}, nil
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
					return FrontMatter{Format: "json", End: i + 1, Raw: strings.Join(lines[:i+1], "\n"), First: 0}, nil
				}
			}
			return FrontMatter{}, fmt.Errorf("line 1: JSON front matter opened with { but no closing } line")
		}
		return FrontMatter{}, nil
	}
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		for _, d := range closeDelims {
			if l == d {
				return FrontMatter{Format: format, End: i + 1, Raw: strings.Join(lines[1:i], "\n"), First: 1}, nil
			}
		}
	}
	if format == "yaml" {
		// A lone --- at the top with no closing line is a thematic break,
		// not front matter; nothing to warn about unless it looks like YAML.
		if len(lines) > 1 && yamlKeyRE().MatchString(lines[1]) {
			return FrontMatter{}, fmt.Errorf("line 1: front matter opened with --- but never closed (add a closing --- line)")
		}
		return FrontMatter{}, nil
	}
	return FrontMatter{}, fmt.Errorf("line 1: TOML front matter opened with +++ but never closed (add a closing +++ line)")
}

var yamlLineRE = lazyre.New(`line (\d+)`)

// Decode decodes the block's YAML, TOML or JSON into its top-level keys
// (nil when there is no block). An error says what is wrong and starts with
// the 1-based file line ("line 4: invalid YAML front matter: …").
func (b FrontMatter) Decode() (map[string]any, error) {
	var m map[string]any
	switch b.Format {
	case "yaml":
		if err := yaml.Unmarshal([]byte(b.Raw), &m); err != nil {
			msg := err.Error()
			line := b.First + 1
			if sm := yamlLineRE().FindStringSubmatchIndex(msg); sm != nil {
				n, _ := strconv.Atoi(msg[sm[2]:sm[3]])
				line = b.First + n
				msg = strings.TrimSpace(msg[:sm[0]] + msg[sm[1]:])
				msg = strings.TrimPrefix(strings.TrimPrefix(msg, "yaml:"), " :")
				msg = strings.TrimSpace(strings.TrimPrefix(msg, ":"))
			}
			return nil, fmt.Errorf("line %d: invalid YAML front matter: %s", line, msg)
		}
	case "toml":
		// go-toml/v2, whose parser bounds nesting at 10,000 levels:
		// BurntSushi/toml v0.3.1's recursion overflowed the stack on a
		// million nested arrays, which ends the process (red20b finding 1).
		if err := toml.Unmarshal([]byte(b.Raw), &m); err != nil {
			line := b.First + 1
			msg := strings.TrimPrefix(err.Error(), "toml: ")
			var de *toml.DecodeError
			if errors.As(err, &de) {
				row, _ := de.Position()
				line = b.First + row
			}
			return nil, fmt.Errorf("line %d: invalid TOML front matter: %s", line, msg)
		}
		m = tomlTimes(m).(map[string]any)
	case "json":
		dec := json.NewDecoder(strings.NewReader(b.Raw))
		if err := dec.Decode(&m); err != nil {
			line := b.First + 1
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = b.First + 1 + strings.Count(b.Raw[:min(int(se.Offset), len(b.Raw))], "\n")
			}
			return nil, fmt.Errorf("line %d: invalid JSON front matter: %w", line, err)
		}
	}
	return m, nil
}

// tomlTimes replaces go-toml's local dates and date-times (which carry no
// zone) with time.Time values in UTC, as a TOML offset date-time and a
// YAML timestamp decode, so that a date in front matter is a date
// whichever format wrote it; a local time of day becomes its text. The
// nesting is bounded by go-toml's parser.
func tomlTimes(v any) any {
	switch v := v.(type) {
	case toml.LocalDate:
		return v.AsTime(time.UTC)
	case toml.LocalDateTime:
		return v.AsTime(time.UTC)
	case toml.LocalTime:
		return v.String()
	case []any:
		for i, e := range v {
			v[i] = tomlTimes(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = tomlTimes(e)
		}
	}
	return v
}

// KeyLine is the 1-based file line of the block's top-level key (the first
// line that starts with it, as `key:`, `key =` or `"key":`), or the block's
// first line when no line does.
func (b FrontMatter) KeyLine(key string) int {
	for i, l := range strings.Split(b.Raw, "\n") {
		l = strings.TrimLeft(l, " \t")
		rest, ok := strings.CutPrefix(l, key)
		if !ok {
			if rest, ok = strings.CutPrefix(l, `"`+key+`"`); !ok {
				continue
			}
		}
		rest = strings.TrimLeft(rest, " \t")
		if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=") {
			return b.First + i + 1
		}
	}
	return b.First + 1
}
