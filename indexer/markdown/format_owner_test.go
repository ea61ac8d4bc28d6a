package markdown

import (
	"slices"
	"testing"
)

// ExtensionsOf is the one list of a format's extensions: markdown's are
// what FormatOf reads as markdown, in Extensions' order.
func TestExtensionsOf(t *testing.T) {
	t.Parallel()
	if got, want := ExtensionsOf(FormatMarkdown), []string{".md", ".markdown", ".mdx"}; !slices.Equal(got, want) {
		t.Errorf("ExtensionsOf(markdown) = %v, want %v", got, want)
	}
	for _, e := range Extensions() {
		if !slices.Contains(ExtensionsOf(FormatOf("x"+e)), e) {
			t.Errorf("%s is not among ExtensionsOf(%s)", e, FormatOf("x"+e))
		}
	}
	if ExtensionsOf("") != nil {
		t.Error("ExtensionsOf of no format is not empty")
	}
}
