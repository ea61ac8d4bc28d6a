package indexer

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// versionFilterName is the token filter that gives a version number its
// shorter forms (versionForms). Both analyzers (textAnalyzer for the
// fields and the scored query, keyTextAnalyzer for the candidates) run it, so
// a page and a query make the same terms of the same version.
const versionFilterName = "ctx_version"

func init() {
	if err := registry.RegisterTokenFilter(versionFilterName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return versionFilter{}, nil
	}); err != nil {
		panic(err)
	}
}

// versionFilter adds, after each token that is a version number, its
// shorter forms (versionForms) at the same position.
type versionFilter struct{}

func (versionFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	for i, t := range input {
		forms := versionForms(t.Term)
		if len(forms) == 0 {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = make(analysis.TokenStream, i, len(input)+2*len(forms))
			copy(out, input[:i])
		}
		out = append(out, t)
		for _, f := range forms {
			out = append(out, &analysis.Token{Term: append([]byte(nil), f...), Start: t.Start, End: t.End, Position: t.Position, Type: t.Type})
		}
	}
	if out == nil {
		return input
	}
	return out
}

// versionForms returns the shorter forms of term when it is a version
// number of two or three parts, with or without a "v": the number without
// its "v", and its major.minor. "1.16.0" is also "1.16", "v1.16.0" also
// "1.16.0" and "1.16", "v1.41" also "1.41". The word segmenter keeps such
// a number whole, so without them a question about "1.16" would not find
// the release notes of "1.16.0" (while "1.16.x" is segmented as "1.16"
// and "x"). Four parts and more (an IP address) are left alone, and so is
// a number of one part ("v2").
func versionForms(term []byte) [][]byte {
	if len(term) < 3 {
		return nil
	}
	core := term
	if core[0] == 'v' {
		core = core[1:]
	}
	// dots[i] is where the (i+1)th dot of core is.
	var dots [2]int
	n, digits := 0, 0
	for i, c := range core {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && digits > 0:
			if n == len(dots) {
				return nil
			}
			dots[n] = i
			n++
			digits = 0
		default:
			return nil
		}
	}
	if n == 0 || digits == 0 {
		return nil
	}
	var forms [][]byte
	if len(core) < len(term) {
		forms = append(forms, core)
	}
	if n == 2 {
		forms = append(forms, core[:dots[1]])
	}
	return forms
}
