package markdown

import (
	"fmt"
	"regexp"
	"strings"
)

// FrontMatter locates a front matter block. Lines [0, End) belong to it;
// the body starts at line End (0-based). Format is "yaml", "toml" or
// "json"; "" means there is none. Decoding the block is the caller's
// business.
type FrontMatter struct {
	Format string
	End    int
	Raw    string // the block without its delimiters (JSON keeps its braces)
	First  int    // 0-based line of Raw's first line
}

var yamlKeyRE = regexp.MustCompile(`^[A-Za-z_][\w-]*:(\s|$)`)

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
		if len(lines) > 1 && yamlKeyRE.MatchString(lines[1]) {
			return FrontMatter{}, fmt.Errorf("line 1: front matter opened with --- but never closed (add a closing --- line)")
		}
		return FrontMatter{}, nil
	}
	return FrontMatter{}, fmt.Errorf("line 1: TOML front matter opened with +++ but never closed (add a closing +++ line)")
}
