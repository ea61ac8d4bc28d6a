package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// A registry read over http may not name a repository on this machine
// (a path or file://): refused at load, at contexts[i].repo, as a dir
// context is; a relative repo resolves against the URL and stays remote.
func TestRemoteRegistryLocalRepoRefused(t *testing.T) {
	t.Parallel()
	body := reg("hub", nil, "ok=./docs.git", "remote=https://example.com/org/x.git", "abs=/home/victim/notes", "fileurl=FILE:///srv/wiki.git")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	defer srv.Close()
	var rec recorder
	_, err := rec.loader().Load(context.Background(), srv.URL+"/reg.json")
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("Load: %v, want a *ParseError", err)
	}
	var fields []string
	for _, p := range pe.Errors {
		fields = append(fields, p.Field)
		if p.Line == 0 || !strings.Contains(p.Msg, "on this machine") {
			t.Errorf("problem %v: want a position and why", p)
		}
	}
	if got := strings.Join(fields, " "); got != "contexts[2].repo contexts[3].repo" {
		t.Errorf("fields %q, want contexts[2].repo contexts[3].repo\n%v", got, err)
	}
	// Check reports the same problems, at their places.
	rep, err := rec.loader().Check(context.Background(), srv.URL+"/reg.json")
	if err != nil || len(rep.Problems) != 2 {
		t.Errorf("Check: %v, %v: want the two problems", rep, err)
	}
}

// An import from a registry read over http to one on this machine is
// skipped (Load) or a problem (Check); a local registry keeps its local
// and relative repositories and imports.
func TestRemoteRegistryLocalImportRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	local := filepath.Join(dir, "local.json")
	writeFile(t, local, reg("local", nil, "mine=../sibling", "abs=/srv/repo.git"))
	body := reg("hub", []string{"file://" + filepath.ToSlash(local), "git+" + dir, "./more.json"}, "a=https://example.com/a.git")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/more.json") {
			fmt.Fprint(w, reg("more", nil, "b=https://example.com/b.git"))
			return
		}
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	var rec recorder
	res, err := rec.loader().Load(context.Background(), srv.URL+"/reg.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "a,b" {
		t.Errorf("contexts %s, want a,b (the local imports skipped)", got)
	}
	if len(rec.warnings) != 2 || !strings.Contains(rec.warnings[0], "on this machine") || !strings.Contains(rec.warnings[1], "on this machine") {
		t.Errorf("warnings %q: want two saying the import is on this machine", rec.warnings)
	}
	rep, err := rec.loader().Check(context.Background(), srv.URL+"/reg.json")
	if err != nil || len(rep.Problems) != 2 || rep.Problems[0].Field != "imports[0]" || rep.Problems[1].Field != "imports[1]" {
		t.Errorf("Check: %+v, %v: want imports[0] and imports[1]", rep, err)
	}

	// The local registry itself (the user's file) keeps both.
	var rec2 recorder
	res, err = rec2.loader().Load(context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contexts) != 2 || res.Contexts[0].Repo != filepath.Join(dir, "..", "sibling") && res.Contexts[0].Repo != filepath.Join(filepath.Dir(dir), "sibling") || res.Contexts[1].Repo != "/srv/repo.git" {
		t.Errorf("local registry contexts %+v: want ../sibling resolved against its folder, and /srv/repo.git", res.Contexts)
	}
}

// A remote git registry's relative repo is resolved against the
// repository's URL (remote): not refused.
func TestRemoteGitRegistryRelativeRepo(t *testing.T) {
	t.Parallel()
	loc := Location{Kind: KindGit, URL: "https://host/org/hub.git", File: DefaultFileName}
	r, err := Parse("reg.json", []byte(reg("hub", nil, "rel=../docs", "abs=/etc/x", "scp=git@host:org/y.git")))
	if err != nil {
		t.Fatal(err)
	}
	probs := loc.localRepoProblems(r, []byte(reg("hub", nil, "rel=../docs", "abs=/etc/x", "scp=git@host:org/y.git")))
	if len(probs) != 1 || probs[0].Field != "contexts[1].repo" {
		t.Errorf("problems %v: want contexts[1].repo alone", probs)
	}
	local := Location{Kind: KindGit, URL: "/srv/hub", File: DefaultFileName}
	if probs := local.localRepoProblems(r, nil); len(probs) != 0 {
		t.Errorf("a local git registry: problems %v, want none", probs)
	}
}
