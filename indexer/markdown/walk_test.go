package markdown

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// TestWalkGitignore: a dir source's walk skips what its .gitignore files
// ignore, each for its own folder, later and deeper lines first (negation
// included), as git does; Ignored agrees for one path; Walk (a locked
// package) reads no .gitignore.
func TestWalkGitignore(t *testing.T) {
	fsys := fstest.MapFS{
		".gitignore":          {Data: []byte("# comment\n*.secret.md\nbuild/\n/top.md\n!keep.secret.md\n")},
		"a.md":                {Data: []byte("# a")},
		"top.md":              {Data: []byte("# top")},
		"x.secret.md":         {Data: []byte("# s")},
		"keep.secret.md":      {Data: []byte("# k")},
		"build/out.md":        {Data: []byte("# o")},
		"sub/top.md":          {Data: []byte("# not the root's /top.md")},
		"sub/.gitignore":      {Data: []byte("draft*.md\r\n!x.secret.md\n")},
		"sub/draft1.md":       {Data: []byte("# d")},
		"sub/x.secret.md":     {Data: []byte("# re-included below")},
		"sub/deep/draft2.md":  {Data: []byte("# d")},
		"other/draft3.md":     {Data: []byte("# sub's rule is not other's")},
		".hidden/h.md":        {Data: []byte("# h")},
		"sub/build/nested.md": {Data: []byte("# the root's build/ matches at any depth")},
	}
	got, err := WalkWith(fsys, WalkOptions{Gitignore: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.md", "keep.secret.md", "other/draft3.md", "sub/top.md", "sub/x.secret.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WalkWith = %q, want %q", got, want)
	}
	all, _ := Walk(fsys, nil)
	if len(all) != 11 {
		t.Errorf("Walk (no .gitignore) = %q, want the 11 documents not hidden", all)
	}
	for _, p := range all {
		in := false
		for _, w := range want {
			in = in || w == p
		}
		if Ignored(fsys, nil, p) == in {
			t.Errorf("Ignored(%q) = %v, WalkWith says the opposite", p, !in)
		}
	}
}

// TestWalkAbove: inside a project, the project's .gitignore files from its
// root down to the walked folder apply too (paths matched from the
// project's root), less a pattern that would ignore the folder itself.
func TestWalkAbove(t *testing.T) {
	project := fstest.MapFS{
		".gitignore":                {Data: []byte("secrets.yaml\n/docs/api/private/\n*.draft.md\ndocs/\n")},
		"docs/.gitignore":           {Data: []byte("/api/gen/\n!ok.draft.md\n")},
		"docs/api/a.md":             {Data: []byte("# a")},
		"docs/api/secrets.yaml":     {Data: []byte("k: v")},
		"docs/api/private/p.md":     {Data: []byte("# p")},
		"docs/api/gen/g.md":         {Data: []byte("# g")},
		"docs/api/x.draft.md":       {Data: []byte("# x")},
		"docs/api/ok.draft.md":      {Data: []byte("# ok")},
		"docs/api/sub/private/q.md": {Data: []byte("# /docs/api/private/ is anchored: not this one")},
	}
	sub, err := fs.Sub(project, "docs/api")
	if err != nil {
		t.Fatal(err)
	}
	above := &Above{FS: project, Path: "docs/api"}
	got, err := WalkWith(sub, WalkOptions{Gitignore: true, Above: above}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.md", "ok.draft.md", "sub/private/q.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WalkWith = %q, want %q", got, want)
	}
	for _, p := range []string{"secrets.yaml", "private/p.md", "gen/g.md", "x.draft.md"} {
		if !Ignored(sub, above, p) {
			t.Errorf("Ignored(%q) = false", p)
		}
	}
	if Ignored(sub, above, "a.md") {
		t.Error("Ignored(a.md): the root's docs/ pattern names the folder itself, and is left out")
	}
}

// TestWalkBounds: past MaxFiles files and folders, or MaxBytes of
// documents, the walk stops with a *TooLargeError naming the limit to
// raise.
func TestWalkBounds(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md":      {Data: []byte("12345")},
		"b.md":      {Data: []byte("12345")},
		"d/c.md":    {Data: []byte("12345")},
		"image.png": {Data: make([]byte, 1000)},
	}
	if _, err := WalkWith(fsys, WalkOptions{MaxFiles: 5, MaxBytes: 15}, nil); err != nil {
		t.Fatalf("within bounds: %v", err)
	}
	var tl *TooLargeError
	if _, err := WalkWith(fsys, WalkOptions{MaxFiles: 4}, nil); !errors.As(err, &tl) || !tl.Files || tl.Error() == "" {
		t.Errorf("MaxFiles 4: %v", err)
	}
	if _, err := WalkWith(fsys, WalkOptions{MaxBytes: 14}, nil); !errors.As(err, &tl) || tl.Files {
		t.Errorf("MaxBytes 14: %v", err)
	}
}

// TestWalkNoLinkOut: a symbolic link, to a folder or a file, is never
// followed, and a .gitignore that is a link is not read.
func TestWalkNoLinkOut(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "secret.md"), []byte("# s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "ignore"), []byte("a.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# a"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"dir": out, "file.md": filepath.Join(out, "secret.md"), "slash": "/", ".gitignore": filepath.Join(out, "ignore")} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := WalkWith(os.DirFS(root), WalkOptions{Gitignore: true, MaxFiles: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"a.md"}) {
		t.Errorf("WalkWith = %q, want [a.md]", got)
	}
}

// BenchmarkWalkGitignore: the cost of a dir source's .gitignore rules on a
// walk of 5,000 documents in 100 folders, with a 100-line .gitignore at
// the root and a 10-line one in each folder, against the plain walk.
func BenchmarkWalkGitignore(b *testing.B) {
	root := b.TempDir()
	var top []byte
	for i := range 100 {
		top = append(top, []byte("pattern"+string(rune('a'+i%26))+"*/**/*.tmp\n")...)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), top, 0o644); err != nil {
		b.Fatal(err)
	}
	for d := range 100 {
		dir := filepath.Join(root, "d"+string(rune('a'+d%26))+string(rune('a'+d/26)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("draft*.md\n*.bak\n/build\nx/\n!keep.md\na\nb\nc\nd\ne\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		for f := range 50 {
			if err := os.WriteFile(filepath.Join(dir, "doc"+string(rune('a'+f%26))+string(rune('a'+f/26))+".md"), []byte("# d\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, o := range []struct {
		name string
		opt  WalkOptions
	}{{"plain", WalkOptions{}}, {"gitignore+bounds", WalkOptions{Gitignore: true, MaxFiles: 100_000, MaxBytes: 1 << 30}}} {
		b.Run(o.name, func(b *testing.B) {
			for b.Loop() {
				docs, err := WalkWith(os.DirFS(root), o.opt, nil)
				if err != nil || len(docs) != 5000 {
					b.Fatalf("%d documents, %v", len(docs), err)
				}
			}
		})
	}
}

// TestWalkSeen: Seen is told of every folder the walk enters (not a hidden
// or an ignored one) with its stat data, and, with Gitignore, of every
// .gitignore it looks for, in the folder or above it (Above), with its
// stat data or nil when there is none.
func TestWalkSeen(t *testing.T) {
	project := fstest.MapFS{
		".gitignore":               {Data: []byte("/docs/api/build/\n")},
		"docs/api/a.md":            {Data: []byte("# a")},
		"docs/api/sub/.gitignore":  {Data: []byte("gen/\n")},
		"docs/api/sub/b.md":        {Data: []byte("# b")},
		"docs/api/sub/gen/g.md":    {Data: []byte("# g")},
		"docs/api/build/out.md":    {Data: []byte("# o")},
		"docs/api/.hidden/h.md":    {Data: []byte("# h")},
		"docs/api/empty/image.png": {Data: []byte("png")},
	}
	sub, err := fs.Sub(project, "docs/api")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		Path            string
		Above, Dir, Has bool
	}
	var got []seen
	o := WalkOptions{Gitignore: true, Above: &Above{FS: project, Path: "docs/api"}, Seen: func(s Seen) {
		got = append(got, seen{s.Path, s.Above, s.Dir, s.Info != nil})
	}}
	if _, err := WalkWith(sub, o, nil); err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{".gitignore", true, false, true}, {"docs/.gitignore", true, false, false},
		{".", false, true, true}, {".gitignore", false, false, false},
		{"empty", false, true, true}, {"empty/.gitignore", false, false, false},
		{"sub", false, true, true}, {"sub/.gitignore", false, false, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Seen got\n%v\nwant\n%v", got, want)
	}
	got = nil
	o.Gitignore, o.Above = false, nil
	if _, err := WalkWith(sub, o, nil); err != nil {
		t.Fatal(err)
	}
	want = []seen{{".", false, true, true}, {"build", false, true, true}, {"empty", false, true, true}, {"sub", false, true, true}, {"sub/gen", false, true, true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("without Gitignore: Seen got\n%v\nwant\n%v", got, want)
	}
}
