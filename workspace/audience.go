package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctx-dev/ctx/audience"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
)

// Audience rules (audience) are enforced at install: the staging
// step shared by every source kind deletes from the stage each document
// that is not for this project, before the h1: hash and the state are
// computed. So a withheld document is never in packages/<alias> (nor
// indexed, searched or served), the lock's hash covers what was installed,
// and status, verify and the dirty guard, which compare the disk with the
// state and the hash, never see it as deleted.

// ProjectName is the name audience rules match: the manifest's "project",
// or the project folder's name (defaulted).
func (w *Workspace) ProjectName() (name string, defaulted bool) {
	return w.proj.Name(&w.manifest)
}

// audienceFor is the project name t's package gets its audience rules
// applied for: "" when its spec ignores them.
func (w *Workspace) audienceFor(t *task) string {
	if t.spec != nil && t.spec.Audience == project.AudienceIgnore {
		return ""
	}
	name, _ := w.ProjectName()
	return name
}

// audienceResult is what applyAudience found in a stage.
type audienceResult struct {
	rules    bool     // some document has audience rules
	withheld []string // documents deleted from the stage, sorted
	// ruled are the documents with rules, readable or not (recorded as
	// fileState.Rules).
	ruled map[string]bool
}

// lockAudience is the lock entry's Audience for r applied for name ("" =
// ignored): the name when some document has rules.
func (r audienceResult) lockAudience(name string) string {
	if r.rules && name != "" {
		return name
	}
	return ""
}

// applyAudience reads the audience rules of every document of the staged
// tree (the documents markdown.Walk lists: the ones the indexer and the
// server would see) and, when name is not "", withholds those not for
// name: deleted from the stage (one kept in the package folder is left
// out of the new tree, which deletes it there). A document whose rules
// cannot be read is withheld (fail closed), with a warning at its
// file:line. A document kept in the package folder (tree.kept) that its
// state records without rules (when the state noted them) is not read:
// it is what ctx installed, under the same rules (keepable).
func (w *Workspace) applyAudience(alias string, tree stageTree, name string) (audienceResult, error) {
	res := audienceResult{ruled: map[string]bool{}}
	docs, err := tree.docs(func(dir string, err error) {
		w.log("warning: %s: cannot read %s: %v", alias, safetext.Escape(dir), err)
	})
	if err != nil {
		return res, fmt.Errorf("audience rules: %w", err)
	}
	// Reading is most of the work: in parallel, then decided in order.
	type verdict struct {
		rules   audience.Rules
		err     error // malformed rules (fail closed)
		readErr error
	}
	vs := make([]verdict, len(docs))
	parallel(len(docs), runtime.GOMAXPROCS(0), func(i int) {
		if k, ok := tree.kept[docs[i]]; ok && tree.rulesNoted && !k.Rules {
			return // no rules
		}
		content, err := os.ReadFile(tree.file(docs[i]))
		if err != nil {
			vs[i].readErr = err
			return
		}
		vs[i].rules, vs[i].err = audience.Read(docs[i], content)
	})
	for i, doc := range docs {
		v := vs[i]
		if v.readErr != nil {
			return res, fmt.Errorf("audience rules: %w", v.readErr)
		}
		if v.err != nil {
			where := safetext.Escape(doc) + ":" + strings.TrimPrefix(v.err.Error(), "line ")
			if name != "" {
				w.log("warning: %s: %s; document withheld (fix its front matter, or set \"audience\": \"ignore\" on the package)", alias, where)
			} else {
				w.log("warning: %s: %s (rules ignored for this package)", alias, where)
			}
		} else if !v.rules.Any() {
			continue
		}
		res.rules, res.ruled[doc] = true, true
		if name == "" || (v.err == nil && v.rules.Allows(name)) {
			continue
		}
		if _, kept := tree.kept[doc]; !kept {
			if err := w.fs.Remove(tree.file(doc)); err != nil {
				return res, fmt.Errorf("audience rules: %w", err)
			}
		}
		res.withheld = append(res.withheld, doc)
	}
	return res, nil
}

// audienceStale reports whether the package on disk (t.loc.state) was
// installed under other audience rules than t's now: another project
// name, rules ignored then and applied now or the reverse, before ctx
// applied them at all, or a lock entry that records other rules than the
// disk has.
func (w *Workspace) audienceStale(t *task) bool {
	st := t.loc.state
	if st == nil {
		return false
	}
	want := w.audienceFor(t)
	switch {
	case !st.AudienceChecked:
		// Installed by a ctx that did not apply rules: again only when
		// some installed document has rules; otherwise note it in the
		// state (not when opened read-only), so this is asked once.
		if hasRules(w.pkgDir(t.alias)) {
			return true
		}
		st.AudienceChecked = true
		_ = w.writeState(w.statePath(t.alias), st)
		return w.audienceStale(t)
	case st.Audience != "" && st.Audience != want:
		return true
	case st.AudienceIgnored && want != "":
		return true
	case t.target != nil && t.target.Audience != st.Audience:
		return true
	}
	return false
}

// hasRules reports whether a document in dir (markdown.Walk's) has
// audience rules, readable or not.
func hasRules(dir string) bool {
	docs, _ := markdown.Walk(os.DirFS(dir), nil)
	for _, doc := range docs {
		content, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(doc)))
		if err != nil {
			continue
		}
		if r, err := audience.Read(doc, content); err != nil || r.Any() {
			return true
		}
	}
	return false
}
