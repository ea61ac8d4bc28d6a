package markdown

import (
	"reflect"
	"testing"
)

func TestStripHeadingID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, clean, id string }{
		{"Usage {/*usage*/}", "Usage", "usage"},
		{"Usage {/* usage */}", "Usage", "usage"},
		{"First Steps { #first-steps }", "First Steps", "first-steps"},
		{"First Steps {#first-steps}", "First Steps", "first-steps"},
		{"Install {: #install .wide }", "Install", "install"},
		{"Install {.unnumbered}", "Install", ""},
		{"Install {#a data-x=\"y z\"}", "Install", "a"},
		{"Use {name} here", "Use {name} here", ""},   // not a marker: not at the end
		{"Templates {name}", "Templates {name}", ""}, // no # or .: a word in braces
		{"{#only-a-marker}", "{#only-a-marker}", ""}, // nothing else: kept
		{"Plain heading", "Plain heading", ""},
		{"Register Check ((#register-check))", "Register Check", "register-check"},
		{"Read Intention ((##read-intention))", "Read Intention", "read-intention"},
		{"Consul 1.11.0 ((#consul-1-11-0, #v1-11))  ", "Consul 1.11.0", "consul-1-11-0"},
		{"f(g(x)) ((#fg))", "f(g(x))", "fg"},
		{"Use ((#x)) here", "Use ((#x)) here", ""},       // not at the end
		{"Math ((a))", "Math ((a))", ""},                 // no #: words in parentheses
		{"((#only-an-alias))", "((#only-an-alias))", ""}, // nothing else: kept
	} {
		clean, id := StripHeadingID(c.in)
		if clean != c.clean || id != c.id {
			t.Errorf("StripHeadingID(%q) = %q, %q; want %q, %q", c.in, clean, id, c.clean, c.id)
		}
	}
}

// TestHeadingIDsStripped: markers are not heading words (outline, trails,
// chunks), and the id or the clean text opens the section.
func TestHeadingIDsStripped(t *testing.T) {
	t.Parallel()
	d := Parse([]byte("# Guide {/*guide*/}\n\nIntro.\n\n## Usage { #usage-id }\n\nUse it.\n\nSetext {#setext-id}\n------\n\nMore.\n"))
	var got []string
	for _, h := range d.Outline() {
		got = append(got, h.Text)
	}
	if want := []string{"Guide", "Usage", "Setext"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("outline = %q, want %q", got, want)
	}
	if tr := d.Trails()[1]; !reflect.DeepEqual(tr, []string{"Guide", "Usage"}) {
		t.Errorf("trail = %q", tr)
	}
	for _, q := range []string{"usage-id", "#usage-id", "Usage", "Guide > Usage"} {
		s, _, ok := d.Section(q)
		if !ok || s.StartLine != 5 || s.EndLine != 7 {
			t.Errorf("Section(%q) = %+v, %v; want lines 5-7", q, s, ok)
		}
	}
	if s, _, ok := d.Section("setext-id"); !ok || s.StartLine != 9 {
		t.Errorf("Section(setext-id) = %+v, %v; want line 9", s, ok)
	}
	if s, _, ok := d.Section("guide"); !ok || s.StartLine != 1 {
		t.Errorf("Section(guide) = %+v, %v; want line 1", s, ok)
	}
}

// TestHashiCorpAnchorAliases: "## Register Check ((#register-check))"
// (Consul, Vault) is the heading "Register Check" in the outline, trails
// and chunks, and the alias, the text or the trail opens its section.
func TestHashiCorpAnchorAliases(t *testing.T) {
	t.Parallel()
	d := ParseFile("api-docs/agent/check.mdx", []byte("---\npage_title: Check - Agent - HTTP API\n---\n\n# Check - Agent HTTP API\n\nIntro.\n\n## Register Check ((#register-check, #register))\n\nRegisters a check.\n\n## Deregister Check ((##deregister))\n\nRemoves it.\n"))
	var got []string
	for _, h := range d.Outline() {
		got = append(got, h.Text)
	}
	if want := []string{"Check - Agent HTTP API", "Register Check", "Deregister Check"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("outline = %q, want %q", got, want)
	}
	if want := [][]string{{"Check - Agent HTTP API"}, {"Check - Agent HTTP API", "Register Check"}, {"Check - Agent HTTP API", "Deregister Check"}}; !reflect.DeepEqual(d.Trails(), want) {
		t.Errorf("trails = %q, want %q", d.Trails(), want)
	}
	for _, q := range []string{"register-check", "#register-check", "Register Check", "Check - Agent HTTP API > Register Check"} {
		s, _, ok := d.Section(q)
		if !ok || s.StartLine != 9 || s.EndLine != 11 {
			t.Errorf("Section(%q) = %+v, %v; want lines 9-11", q, s, ok)
		}
	}
	if s, _, ok := d.Section("deregister"); !ok || s.StartLine != 13 {
		t.Errorf("Section(deregister) = %+v, %v; want line 13", s, ok)
	}
}

func TestRSTRolesInTitles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{":mod:`json` --- JSON encoder and decoder", "json --- JSON encoder and decoder"},
		{"The :func:`~os.path.join` function", "The join function"},
		{":ref:`The tutorial <tut-label>`", "The tutorial"},
		{":doc:`<install>`", "install"},
		{":py:class:`!Path` objects", "Path objects"},
		{"No roles: `code` here", "No roles: `code` here"},
	} {
		if got := RSTInline(c.in, nil); got != c.want {
			t.Errorf("RSTInline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	d := ParseFile("json.rst", []byte(":mod:`json` --- JSON encoder\n=============================\n\nText.\n"))
	if hs := d.Outline(); len(hs) != 1 || hs[0].Text != "json --- JSON encoder" {
		t.Errorf("rst outline = %+v", hs)
	}
}
