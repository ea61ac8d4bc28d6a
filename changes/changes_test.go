package changes

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func file(p, content string) File {
	return File{Path: p, ID: plumbing.ComputeHash(plumbing.BlobObject, []byte(content)).String(), Read: func() ([]byte, error) { return []byte(content), nil }}
}

const guide = `# Guide

Intro text that is long enough to be a section of its own.

## Install

Run the installer with the default options and wait for it.

## Configure

Set the options in the config file and restart the service.

## Use

Call the API with the token and read the answer carefully.
`

func TestCompareSections(t *testing.T) {
	edited := strings.Replace(guide, "Set the options in the config file", "Set the options in config.toml", 1)
	// A line added above moves every later section: only the edited one is listed.
	edited = strings.Replace(edited, "Intro text", "Intro text, now longer,", 1)
	docs, err := Compare(
		[]File{file("guide.md", guide), file("old.md", "# Old\n\nGone now, this document is.\n"), file("same.md", "# Same\n"), file("a/moved.md", "# Moved\n\nbody\n"), file("image.png", "x")},
		[]File{file("guide.md", edited), file("new.md", "# New\n\nA new document.\n"), file("same.md", "# Same\n"), file("b/moved.md", "# Moved\n\nbody\n"), file("image.png", "y")},
		Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		s := d.Path + " " + d.Change
		if d.From != "" {
			s += " from " + d.From
		}
		for _, sec := range d.Sections {
			s += " [" + sec.Heading() + " " + sec.Change + "]"
		}
		got = append(got, s)
	}
	want := []string{
		"b/moved.md renamed from a/moved.md",
		"guide.md modified [Guide modified] [Guide > Configure modified]",
		"new.md added",
		"old.md removed",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	conf := docs[1].Sections[1]
	if conf.StartLine != 9 || conf.EndLine != 11 {
		t.Errorf("Configure at %d-%d, want 9-11", conf.StartLine, conf.EndLine)
	}
	wantDiff := "@@ -9,3 +9,3 @@\n ## Configure\n \n-Set the options in the config file and restart the service.\n+Set the options in config.toml and restart the service.\n"
	if conf.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", conf.Diff, wantDiff)
	}
}

func TestSectionsAddedRemoved(t *testing.T) {
	old := "# T\n\n## A\n\nText of section A, long enough to stand.\n\n## B\n\nText of section B, long enough to stand.\n"
	new := "# T\n\n## A\n\nText of section A, long enough to stand.\n\n## C\n\nText of section C, long enough to stand.\n"
	secs := Sections("x.md", []byte(old), []byte(new), Limits{})
	if len(secs) != 2 || secs[0].Heading() != "T > C" || secs[0].Change != Added || secs[1].Heading() != "T > B" || secs[1].Change != Removed {
		t.Fatalf("got %+v", secs)
	}
	if secs[0].StartLine != 7 || secs[0].EndLine != 9 || !strings.HasPrefix(secs[0].Diff, "@@ -0,0 +7,3 @@\n+## C\n") {
		t.Errorf("added: %+v", secs[0])
	}
	if secs[1].StartLine != 7 || !strings.HasPrefix(secs[1].Diff, "@@ -7,3 +0,0 @@\n-## B\n") {
		t.Errorf("removed: %+v", secs[1])
	}
}

func TestDiffBounded(t *testing.T) {
	var a, b []string
	for i := range 200 {
		a = append(a, "old line "+strings.Repeat("x", i%7))
		b = append(b, "new line "+strings.Repeat("y", i%5))
	}
	text, cut := Unified(a, b, 1, 1, 10)
	if !cut || strings.Count(text, "\n") != 10 || !strings.Contains(text, "more lines of diff") {
		t.Fatalf("cut=%v:\n%s", cut, text)
	}
	big := []string{strings.Repeat("z", 100)}
	secs := Sections("x.md", []byte("# H\n\n"+big[0]+"\n"), []byte("# H\n\n"+big[0]+"!\n"), Limits{SectionBytes: 50})
	if len(secs) != 1 || !secs[0].Cut || !strings.Contains(secs[0].Diff, "not diffed") {
		t.Fatalf("got %+v", secs)
	}
}

func TestBinaryNotDiffed(t *testing.T) {
	docs, err := Compare([]File{file("a.txt", "one\x00")}, []File{file("a.txt", "two\x00")}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || !docs[0].Binary || docs[0].Sections != nil {
		t.Fatalf("got %+v", docs)
	}
}

func TestUnchangedNotRead(t *testing.T) {
	f := file("a.md", "# A\n")
	f.Read = func() ([]byte, error) { t.Fatal("read"); return nil, nil }
	if docs, err := Compare([]File{f}, []File{f}, Limits{}); err != nil || len(docs) != 0 {
		t.Fatal(docs, err)
	}
}

// TestShortSectionNamed: a short section is its own (search joins it to
// the next chunk, which would name the change for the wrong heading), and
// a change inside a deeper heading is named for its level-3-or-less one.
func TestShortSectionNamed(t *testing.T) {
	old := "# Guide\n\nIntro.\n\n## Install\n\nRun make.\n\n## Use\n\nCall it.\n\n#### Detail\n\nDeep.\n"
	new := "# Guide\n\nIntro.\n\n## Install\n\nRun make install.\n\n## Use\n\nCall it.\n\n#### Detail\n\nDeeper.\n"
	secs := Sections("g.md", []byte(old), []byte(new), Limits{})
	if len(secs) != 2 {
		t.Fatalf("got %d sections, want 2: %+v", len(secs), secs)
	}
	if secs[0].Heading() != "Guide > Install" || secs[0].StartLine != 5 || secs[0].EndLine != 7 || secs[0].Change != Modified {
		t.Errorf("first: %+v", secs[0])
	}
	if secs[1].Heading() != "Guide > Use" || secs[1].StartLine != 9 || secs[1].EndLine != 15 {
		t.Errorf("second: %+v", secs[1])
	}
}
