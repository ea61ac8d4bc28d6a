package indexer

import (
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// TestNavRST pins which chunks of rst pages are navigation, as the rst
// reader sees their lines (markdown.Doc.RST): toctree entries, cross-
// reference roles and hyperlink references are links; targets, comments
// and directives' markers are markup; a literal block's lines are code
// (text, whatever roles they hold).
func TestNavRST(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"toctree-only index page", "Patterns\n========\n\n.. toctree::\n   :maxdepth: 2\n\n   packages\n   appfactories\n   appdispatch\n   urlprocessors\n", true},
		{"toctree with titles", "Guides\n======\n\n.. toctree::\n   :caption: Contents\n\n   Installing <install>\n   The tutorial <tutorial/index>\n", true},
		{"list of doc refs", "See also\n--------\n\n* :doc:`/how-to/fixtures`\n* :ref:`usefixtures`\n* `pytest-xdist <https://pypi.org/project/pytest-xdist/>`_\n", true},
		{"refs split over lines", "See also\n--------\n\n* :doc:`the fixtures\n  guide </how-to/fixtures>`\n* :ref:`using\n  fixtures <usefixtures>`\n* :doc:`plugins`\n", true},
		{"one-entry toctree", "Policies of 3.8\n===============\n\n.. toctree::\n   :maxdepth: 1\n\n   CMP0067: Honor language standard. </policy/CMP0067>\n", true},
		{"parsed-literal synopsis of links", "Synopsis\n^^^^^^^^\n\n.. parsed-literal::\n\n  export(`TARGETS`_ <target>... [...])\n  export(`EXPORT`_ <export-name> [...])\n  export(`PACKAGE`_ <PackageName>)\n", true},
		{"short paragraphs of references", "Further Reference\n=================\n\nQuery Reference: :ref:`query_api_toplevel`\n\nMapper Reference: :ref:`mapper_config_toplevel`\n\nSession Reference: :doc:`/orm/session`\n\n..  Setup code, not for display\n\n    >>> session.close()\n    ROLLBACK\n", true},
		{"see also on the marker line", "Notes\n=====\n\n.. seealso:: :doc:`one`,\n   :doc:`two`,\n   :ref:`three`\n", true},
		{"references with their targets", "Related\n=======\n\n* `Python`_\n* `Go`_\n* Rust_\n\n.. _Python: https://www.python.org/\n.. _Go: https://go.dev/\n.. _Rust: https://www.rust-lang.org/\n", true},
		{"one-entry toctree with a caption", "Policies\n========\n\n.. toctree::\n   :caption: Policies of 3.8\n\n   CMP0067: Honor language standard. </policy/CMP0067>\n", true},
		{"lettered items without blank lines", "Parts\n=====\n\n(a) :doc:`one`\n(b) :doc:`two`\n(c) :doc:`three`\n(d) :doc:`four`\n(e) this item is a long sentence of plain words with no link at all here\n", true},
		// not navigation
		{"prose with many inline links", "Install\n=======\n\nRun the :doc:`installer <install>` and then read the :ref:`configuration <config>`\npage, which explains every option that the server reads at start-up, and\nthe defaults that suit most projects; see `tuning`_ and :doc:`deploy`. The\nserver then starts, reads its :ref:`settings`, and listens on its port.\n", false},
		{"a page of hyperlink targets", "Links\n=====\n\n.. _Python: https://www.python.org/\n.. _Go: https://go.dev/\n.. _Rust: https://www.rust-lang.org/\n.. _Zig: https://ziglang.org/\n", false},
		{"roles in a literal block", "Example\n=======\n\nWrite this::\n\n   * :doc:`one`\n   * :doc:`two`\n   * :doc:`three`\n", false},
		{"roles in a quoted literal block", "Example\n=======\n\nWrite this::\n\n> * :doc:`one`\n> * :doc:`two`\n> * :doc:`three`\n", false},
		{"roles in a comment", "Notes\n=====\n\nThe options are read once.\n\n..\n   * :doc:`one`\n   * :doc:`two`\n   * :doc:`three`\n   * :doc:`four`\n", false},
		{"wrapped prose with references", "Attribute Events\n----------------\n\nAttribute events are triggered as things occur on individual attributes of\nORM mapped objects.  These events form the basis for things like\n:ref:`custom validation functions <simple_validators>` as well as\n:ref:`backref handlers <relationships_backref>`.\n\n.. seealso::\n\n  :ref:`mapping_attributes_toplevel`\n", false},
		{"code block", "Usage\n=====\n\n.. code-block:: python\n\n   open(`a`_)\n   close(`b`_)\n   read(`c`_)\n", false},
		{"a wrapped admonition head with references", "Attribute Events\n================\n\n.. note:: Attribute events are triggered as things occur on attributes\n   :ref:`custom validation functions <simple_validators>` as well as\n   :ref:`backref handlers <relationships_backref>` and also\n   :ref:`other handlers <other>` which are\n   :ref:`described here <desc>`.\n", false},
		{"a page of substitution definitions", "Subs\n====\n\n.. |a| replace:: :doc:`one`\n.. |b| replace:: :doc:`two`\n.. |c| replace:: :doc:`three`\n.. |d| replace:: plain\n.. |e| replace:: text\n", false},
		{"a hidden toctree", "Guide\n=====\n\nThis guide explains how the parts fit.\n\n.. toctree::\n   :hidden:\n\n   install\n   tutorial\n   reference\n   faq\n", false},
		{"a hidden toctree alone", "Guide\n=====\n\n.. toctree::\n   :maxdepth: 2\n   :hidden:\n\n   install\n   tutorial\n", false},
		{"api roles", "Functions\n=========\n\n* :func:`open` opens a file\n* :func:`close` closes it\n* :class:`File` is the file\n", false},
	} {
		p := parseDocument("page.rst", []byte(c.text), nil)
		got := false
		for _, ch := range p.Chunks {
			got = got || ch.nav
		}
		if got != c.want {
			t.Errorf("%s: navigation = %v, want %v", c.name, got, c.want)
		}
	}
}

// FuzzParseRSTNav: any rst or MDX page parses into chunks of its lines,
// and the navigation test (markNav: navRST on the rst reader's lines)
// reads them without failing.
func FuzzParseRSTNav(f *testing.F) {
	for _, s := range []string{
		"Patterns\n========\n\n.. toctree::\n   :maxdepth: 2\n\n   packages\n   Title <target>\n",
		"* :doc:`a\n  b <c>`\n* `x`_\n* y_\n\n.. _x: https://x.example/\n",
		".. parsed-literal::\n\n  f(`A`_ <x>)\n\n.. seealso:: :ref:`z`\n",
		"## A <B t=\"a > b\" /> z\n\n- [a](b)\n- [c](d)\n- [e](f)\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range []string{"f.rst", "f.mdx"} {
			p := parseDocument(name, []byte(s), nil)
			rst := markdown.ParseFile(name, []byte(s)).RST()
			for _, c := range p.Chunks {
				if c.Start < 1 || c.End > p.Lines || c.Start > c.End {
					t.Fatalf("%s: chunk %d-%d of %d lines", name, c.Start, c.End, p.Lines)
				}
				// markNav judged every chunk, once per line range: its nav
				// is navRST of its lines (an rst page's reader lines).
				if rst != nil {
					if c.End > len(rst) {
						t.Fatalf("%s: chunk %d-%d past the reader's %d lines", name, c.Start, c.End, len(rst))
					}
					if want := navRST(rst[c.Start-1 : c.End]); c.nav != want {
						t.Fatalf("%s: chunk %d-%d nav %v, navRST %v", name, c.Start, c.End, c.nav, want)
					}
				}
			}
		}
	})
}

// TestMarkNavLinearWork: markNav's steps (navWork: lines and the bytes
// of their shown text that navRST reads) stay within a constant per
// byte of the page, for one long line cut into many chunks. Not
// parallel: it sets navWork.
func TestMarkNavLinearWork(t *testing.T) {
	for _, n := range []int{1 << 16, 1 << 18, 1 << 20} {
		text := "T\n=\n\n" + strings.Repeat("word ", n/5) + "\n"
		w := 0
		navWork = &w
		p := parseDocument("p.rst", []byte(text), nil)
		navWork = nil
		if len(p.Chunks) < 2 {
			t.Fatalf("%d bytes: %d chunks, want the long line cut into several", n, len(p.Chunks))
		}
		if w > 4*len(text) {
			t.Errorf("%d bytes in %d chunks: markNav took %d steps, want at most %d", len(text), len(p.Chunks), w, 4*len(text))
		}
	}
}

// TestRSTIndexedHeadBlock: a directive's head wrapped over lines is
// indexed as one block (markdown.RSTLine.Cont), so a role that spans its
// lines is its text, not its halves as written.
func TestRSTIndexedHeadBlock(t *testing.T) {
	t.Parallel()
	text := "T\n=\n\n.. note:: see :ref:`the\n   long label <zlabel>` here\n"
	p := parseDocument("p.rst", []byte(text), nil)
	got := ""
	for _, c := range p.Chunks {
		if c.masked {
			got += c.indexed
		} else {
			got += c.Text // indexed as written
		}
	}
	if strings.Contains(got, "`") || strings.Contains(got, "<zlabel>") || !strings.Contains(got, "long label") {
		t.Errorf("indexed %q, want the role reduced to its text", got)
	}
}
