package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRelevantDocumentOrder (round 20's leftover): an answer holds a
// document's sections in the document's order, together, and the
// documents in the order of their best section. Before, the sections
// came in rank order: guide.md's Otters (the best hit, lines 9-11) before
// its Setup (lines 5-7), with other.md's section between them, so an
// agent read the page backwards and in pieces.
func TestReadRelevantDocumentOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes", "guide.md"), "# Guide\n\nHow to keep the office animals.\n\n## Setup\n\nInstall the feeder; an otter needs one.\n\n## Feeder\n\n"+strings.Repeat("The feeder is a box of wood with a lid and a latch.\n", 80)+"\n## Otters\n\nThe otter: otter care, otter food, otter games and otter naps.\nEvery otter sleeps in the afternoon.\n")
	writeFile(t, filepath.Join(dir, "notes", "other.md"), "# Other\n\nOther animals.\n\n## Pond\n\nThe pond has an otter and an otter slide.\n")
	cs := indexedNotes(t, dir)

	var s SearchOut
	if res := call(t, cs, "search", map[string]any{"query": "otter", "allPassages": true}, &s); res.IsError {
		t.Fatal(text(res))
	}
	rank := map[[2]string]int{} // a section's place in search's order
	for i, h := range s.Hits {
		rank[[2]string{h.Path, h.Heading}] = i
	}
	setup, otters, pond := [2]string{"guide.md", "Guide > Setup"}, [2]string{"guide.md", "Guide > Otters"}, [2]string{"other.md", "Other > Pond"}
	for _, k := range [][2]string{setup, otters, pond} {
		if _, ok := rank[k]; !ok {
			t.Fatalf("search has no hit %v: %+v", k, s.Hits)
		}
	}
	if !(rank[otters] < rank[pond] && rank[pond] < rank[setup]) {
		t.Fatalf("the fixture needs Otters, then Pond, then Setup in rank order: %v", rank)
	}

	a := readRelevant(t, cs, map[string]any{"query": "otter"})
	var got [][2]string
	for _, sec := range a.out.Sections {
		got = append(got, [2]string{sec.Path, sec.Heading})
	}
	want := [][2]string{setup, otters, pond}
	if len(got) != len(want) {
		t.Fatalf("sections %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sections %v, want %v: guide.md (the best hit's document) first, its sections in its order", got, want)
		}
	}
}

// TestBudgetCountsWhatTheModelReads (round 20's leftover): an answer's
// budget is spent on what Claude Code and Codex show the model (the texts
// and links), not on _meta, which they do not show. Before, read_relevant's
// _meta (each section's package, path, trail, lines) was counted too, so
// an answer cut to its budget held that much less of the documents.
func TestBudgetCountsWhatTheModelReads(t *testing.T) {
	t.Parallel()
	cs := connect(t, readProject(t))
	for _, maxTokens := range []int{1000, 3000} {
		budget := maxTokens * headroomPercent / 100
		a := readRelevant(t, cs, map[string]any{"query": "walrus", "maxTokens": maxTokens})
		shown := shownTokens(t, a)
		meta := metaTokens(t, a.res)
		if shown > budget {
			t.Errorf("maxTokens %d: the model reads %d tokens, over %d", maxTokens, shown, budget)
		}
		// The 3,000-line section never fits: the answer is cut to its
		// budget, and with its _meta it is over it.
		if shown+meta <= budget {
			t.Errorf("maxTokens %d: the model reads %d tokens of %d (and _meta %d): _meta took the budget's room", maxTokens, shown, budget, meta)
		}
	}
}

// TestReadRelevantPartNamesItsSection (agent21): a passage sent in part
// names the whole section it is part of, the same for every part of it.
// Each part named the run of lines no passage had taken when it was
// picked ("part of lines 39-3006" after a part 5-53 of the same section):
// with a document's parts now in order, side by side, the headers
// contradicted each other.
func TestReadRelevantPartNamesItsSection(t *testing.T) {
	t.Parallel()
	cs := connect(t, readProject(t))
	a := readRelevant(t, cs, map[string]any{"query": "walrus", "maxTokens": 3000})
	parts := 0
	for i, sec := range a.out.Sections {
		if sec.Path != "big.md" {
			continue
		}
		parts++
		if sec.Section != [2]int{5, 3006} {
			t.Errorf("part %d (lines %v) names section %v, want the Giant section's lines [5 3006]", i+1, sec.Lines, sec.Section)
		}
		if !strings.Contains(a.texts[i], " · part of lines 5-3006") {
			t.Errorf("part %d's header: %.120s", i+1, a.texts[i])
		}
	}
	if parts < 2 {
		t.Fatalf("want several parts of the Giant section, got %+v", a.out.Sections)
	}
}

// TestOverBudgetDropsTheLowestRanked (review21-agent21): an answer counted
// whole over its budget drops its lowest-ranked passages, not its last
// ones: in reading order the last passage may be a document's best. No
// answer of the suite reaches the drop (the passages' estimates hold), so
// the rule is tested on its own: reverted to dropping the last, it keeps
// ranks 2 and 0 here.
func TestOverBudgetDropsTheLowestRanked(t *testing.T) {
	t.Parallel()
	ps := []*passage{{rank: 2}, {rank: 0}, {rank: 3}, {rank: 1}} // reading order
	calls := 0
	kept := dropWorst(ps, func(ps []*passage) bool { calls++; return len(ps) > 2 })
	var ranks []int
	for _, p := range kept {
		ranks = append(ranks, p.rank)
	}
	if len(ranks) != 2 || ranks[0] != 0 || ranks[1] != 1 || calls != 3 {
		t.Errorf("kept ranks %v after %d checks, want [0 1] (in reading order) after 3", ranks, calls)
	}
	if got := dropWorst(nil, func([]*passage) bool { return true }); len(got) != 0 {
		t.Errorf("nothing to drop: %v", got)
	}
}
