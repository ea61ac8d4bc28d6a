package markdown

import (
	"reflect"
	"testing"
)

func TestOutline(t *testing.T) {
	in := "---\ntitle: x\n---\n# One\n\ntext\n\n```\n# fenced\n```\n\nTwo\n===\n\n## Three ##\n\n  ### Four\n\n    # indented code\n\n####### seven\n#no-space\n~~~~\n## in tilde\n~~~~\nPara\nover two\n---\n"
	got := Outline([]byte(in))
	want := []Heading{
		{1, "One", 4},
		{1, "Two", 12},
		{2, "Three", 15},
		{3, "Four", 17},
		{2, "Para over two", 26},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Outline =\n%+v\nwant\n%+v", got, want)
	}
}

func TestOutlineUnclosedFence(t *testing.T) {
	got := Outline([]byte("# A\n```\n# B\n"))
	if len(got) != 1 || got[0].Text != "A" {
		t.Errorf("Outline = %+v, want only A (an unclosed fence runs to the end)", got)
	}
}
