package markdown

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// Plain skips expressions that cannot match; it must give exactly what
// running all of them does.
func TestPlainMatchesPlainRegexps(t *testing.T) {
	t.Parallel()
	emphRE := regexp.MustCompile(`\*\*|__`)
	plain := func(s string) string {
		s = linkRE().ReplaceAllString(s, "$1")
		s = outsideCode(s, func(s string) string {
			s = autoRE().ReplaceAllString(s, "$1")
			return tagRE().ReplaceAllStringFunc(s, func(m string) string {
				if htmlTag(m) {
					return ""
				}
				return m
			})
		})
		s = emphRE.ReplaceAllString(s, "")
		return strings.Join(strings.Fields(s), " ")
	}
	const alphabet = "[]()<>*_!/ ab:htps.`-"
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.Intn(24))
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		s := string(b)
		if got, want := Plain(s), plain(s); got != want {
			t.Fatalf("Plain(%q) = %q, want %q", s, got, want)
		}
	}
	for _, s := range []string{"see [the **docs**](https://x) and <https://y> <b>now</b>", "***bold***", "a__b__c"} {
		if got, want := Plain(s), plain(s); got != want {
			t.Errorf("Plain(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestPlainKeepsAngleBrackets: Plain drops HTML (comments and the tags of
// HTML elements, in any case, outside code spans) and keeps every other
// <…> as text, so a heading trail shows `Option<T>` as written.
func TestPlainKeepsAngleBrackets(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"The `Option<T>` `match` Pattern":                        "The `Option<T>` `match` Pattern",
		"Using `Result<T, E>` in Tests":                          "Using `Result<T, E>` in Tests",
		"Comparing `RefCell<T>`/`Rc<T>` and `Mutex<T>`/`Arc<T>`": "Comparing `RefCell<T>`/`Rc<T>` and `Mutex<T>`/`Arc<T>`",
		"Generic Option<T> and Vec<u8> outside code":             "Generic Option<T> and Vec<u8> outside code",
		"Result<T, E>":                                        "Result<T, E>",
		"kubectl exec <TARGET> -- date":                       "kubectl exec <TARGET> -- date",
		"Set Annotation '<json>'":                             "Set Annotation '<json>'",
		"Current workarounds - k8s <=1.9.3":                   "Current workarounds - k8s <=1.9.3",
		"`<br>` is kept in code":                              "`<br>` is kept in code",
		"``a ` <b> b`` <b>x</b>":                              "``a ` <b> b`` x",
		"unclosed ` <b>bold</b>":                              "unclosed ` bold",
		`<a name="install"></a>Install`:                       "Install",
		`Install <A NAME="x"></A>`:                            "Install",
		"Line<br>break<br/>and<BR />more":                     "Linebreakandmore",
		`<span class="filename">Filename: src/main.rs</span>`: "Filename: src/main.rs",
		"<code>Foo<T></code> type":                            "Foo<T> type",
		"<kbd>Ctrl</kbd>+<kbd>C</kbd>":                        "Ctrl+C",
		"Table of Contents <!-- omit in toc -->":              "Table of Contents",
		"<details><summary>More</summary></details>":          "More",
		"see <https://example.com/a> and [text](https://x)":   "see https://example.com/a and text",
		"<":  "<",
		"<>": "<>",
	} {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}
