package indexer

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Document kinds (issue 27). Documentation sources hold pages about what
// changed as well as pages about how things are: changelogs, release
// notes, blog posts, "what's new" pages, migration and upgrade guides.
// They name every feature of a release, so a question about a feature
// finds them as readily as its reference page, and on real documentation
// sites they often came first. docKind recognises them by path, file
// name and title; the kind is indexed with each chunk (fDocKind), is the
// kind: qualifier's document kind (kind:changelog), and ranks the page
// below reference and guide pages (docKindPrior) unless the query asks
// for what changed (queryAsksForKinds).
const (
	KindChangelog = "changelog" // CHANGELOG, NEWS, HISTORY, CHANGES files
	KindRelease   = "release"   // release notes: releases/, release-notes…
	KindBlog      = "blog"      // blog posts: blog/, posts/
	KindWhatsNew  = "whatsnew"  // what's new in a version
	KindMigration = "migration" // migration and upgrade guides
)

// DocKinds are the document kinds, for the kind: qualifier and its help.
var DocKinds = []string{KindChangelog, KindRelease, KindBlog, KindWhatsNew, KindMigration}

// docKindPrior multiplies the score of a chunk of a document of a kind
// when the query does not ask for such pages (bench/relevance).
const docKindPrior = 0.5

var (
	// Folder names (any folder of the path), lower-cased.
	kindDirs = map[string]string{
		"changelog": KindChangelog, "changelogs": KindChangelog, "changes": KindChangelog,
		"release-notes": KindRelease, "releasenotes": KindRelease, "release_notes": KindRelease,
		"releases": KindRelease, "relnotes": KindRelease,
		"blog": KindBlog, "blogs": KindBlog, "posts": KindBlog, "_posts": KindBlog,
		"whatsnew": KindWhatsNew, "whats-new": KindWhatsNew, "whats_new": KindWhatsNew,
		"migration": KindMigration, "migrations": KindMigration, "migrating": KindMigration,
		"migration-guide": KindMigration, "migration-guides": KindMigration,
		"upgrading": KindMigration, "upgrade-guide": KindMigration, "upgrade-guides": KindMigration,
	}
	// File names (without extension, lower-cased); compiled on first use.
	kindFileRE = sync.OnceValue(func() []kindRule {
		return []kindRule{
			{regexp.MustCompile(`^(changelog|changes|changelog[-_.].*|changes[-_.]v?\d.*)$`), KindChangelog},
			{regexp.MustCompile(`^(release[-_]?notes?|relnotes|releases?[-_]v?\d.*|release[-_]notes[-_].*|v?\d+(\.\d+)+[-_]?release[-_]?notes?)$`), KindRelease},
			{regexp.MustCompile(`^(whats[-_]?new|what[-_]s[-_]new|whatsnew[-_].*|whats[-_]new[-_].*|new[-_]in[-_]v?\d.*)$`), KindWhatsNew},
			// "upgrading", "migration-guide", "migrating-from-v4",
			// "upgrade-to-2.0", "UPGRADE": a guide to move between versions;
			// not "upgrade-strategy-for-nodes" nor "database-migrations",
			// which are about a task, not a version.
			{regexp.MustCompile(`^(migrat(e|ion|ing)|upgrad(e|ing))([-_](guides?|notes?|(to|from)([-_].*)?|v?\d.*))?$`), KindMigration},
			{regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[-_].+$`), KindBlog}, // Jekyll-style dated posts
		}
	})
	// Titles, lower-cased; compiled on first use.
	kindTitleRE = sync.OnceValue(func() []kindRule {
		return []kindRule{
			{regexp.MustCompile(`^(change ?log|changes|release history)$|^(v?\d+(\.\d+)* )?change ?log\b`), KindChangelog},
			{regexp.MustCompile(`^(.*\brelease notes|release notes (for|of)\b.*|release notes:? v?\d.*|release v?\d+(\.\d+)+)$`), KindRelease},
			{regexp.MustCompile(`^what['’]?s new\b`), KindWhatsNew},
			{regexp.MustCompile(`^(migrating|upgrading) (from|to)\b|^(migration|upgrade|upgrading) guide\b|^.*\b(migration|upgrade) guide$`), KindMigration},
		}
	})
)

// kindRule is a pattern of a name or title and the kind it means.
type kindRule struct {
	re   *regexp.Regexp
	kind string
}

// docKind returns the kind of the document at rel (its path inside its
// package) titled title: one of DocKinds, or "" for reference and guide
// pages and everything else. The file name is looked at first, then the
// folders (nearest first), then the title.
func docKind(rel, title string) string {
	// NEWS and HISTORY in capitals are a project's changelog; in lower
	// case they are as likely a page about a command (tldr's history.md).
	if name := strings.SplitN(path.Base(rel), ".", 2)[0]; name == "NEWS" || name == "HISTORY" {
		return KindChangelog
	}
	// A bare verb in lower case, "migrate" or "upgrade", is how a command's
	// reference page is named (Vault's commands/operator/migrate.mdx, a
	// CLI's upgrade.md); a guide is named for the act or its direction
	// (migration, upgrading, upgrade-to-v3) or, as a project's own file,
	// in capitals (UPGRADE.md). Its folders and title still count.
	verb := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	verbName := verb == "migrate" || verb == "upgrade"
	rel = strings.ToLower(rel)
	base := path.Base(rel)
	name := strings.TrimSuffix(base, path.Ext(base))
	if name == "index" || name == "readme" || name == "_index" || verbName {
		name = ""
	}
	for _, k := range kindFileRE() {
		if name != "" && k.re.MatchString(name) {
			return k.kind
		}
	}
	dirs := strings.Split(path.Dir(rel), "/")
	for i := len(dirs) - 1; i >= 0; i-- {
		if k, ok := kindDirs[dirs[i]]; ok {
			return k
		}
	}
	t := strings.ToLower(strings.TrimSpace(title))
	for _, k := range kindTitleRE() {
		if k.re.MatchString(t) {
			return k.kind
		}
	}
	return ""
}

// kindQueryRE matches a query word that asks for pages about what
// changed: changelog, release notes, migrating, upgrading, deprecations,
// a blog or announcement, a version number (3.12, v2); "what's new" is
// asked as a pair (alone, "what" and "new" are common words).
var kindQueryRE = lazyre.New(`^(changelogs?|releases?|released|relnotes|whatsnew|migrat\w*|upgrad\w*|deprecat\w*|blogs?|announc\w*|v\d+(\.\d+)*|\d+\.\d+(\.\d+)*)$`)

// queryAsksForKinds reports whether the query's words ask for pages of a
// kind (docKind): then no kind is ranked down.
func queryAsksForKinds(words []string) bool {
	for _, w := range words {
		w = strings.ToLower(strings.Trim(w, `"'?!.,;:()`))
		if kindQueryRE().MatchString(w) {
			return true
		}
	}
	for i := 0; i+1 < len(words); i++ {
		a, b := strings.ToLower(words[i]), strings.ToLower(strings.Trim(words[i+1], `"'?!.,;:()`))
		if (a == "what's" || a == "whats" || a == "what’s") && b == "new" {
			return true
		}
	}
	return false
}
