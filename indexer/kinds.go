package indexer

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Document kinds (issue 27). Documentation sources hold pages about what
// changed as well as pages about how things are: changelogs, release
// notes, blog posts, "what's new" pages, migration and upgrade guides,
// deprecation notices. They name every feature of a release, so a question about a feature
// finds them as readily as its reference page, and on real documentation
// sites they often came first. docKind recognises them by path, file
// name, title and headings; the kind is indexed with each chunk
// (fDocKind), is the kind: qualifier's document kind (kind:changelog),
// and ranks the page
// below reference and guide pages (docKindPrior) unless the query asks
// for what changed (queryAsksForKinds).
const (
	KindChangelog   = "changelog"   // CHANGELOG, NEWS, HISTORY, CHANGES files
	KindRelease     = "release"     // release notes: releases/, release-notes…
	KindBlog        = "blog"        // blog posts: blog/, posts/
	KindWhatsNew    = "whatsnew"    // what's new in a version
	KindMigration   = "migration"   // migration and upgrade guides
	KindDeprecation = "deprecation" // deprecation notices: what is deprecated or removed, and when
)

// DocKinds are the document kinds, for the kind: qualifier and its help.
var DocKinds = []string{KindChangelog, KindRelease, KindBlog, KindWhatsNew, KindMigration, KindDeprecation}

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
		"migrating":       KindMigration,
		"migration-guide": KindMigration, "migration-guides": KindMigration,
		"upgrading": KindMigration, "upgrade-guide": KindMigration, "upgrade-guides": KindMigration,
		"deprecation": KindDeprecation, "deprecations": KindDeprecation,
	}
	// Folder names that hold version migration guides as often as pages
	// about a task of the same name (database schema migrations, a
	// command's reference): a page in one is a migration guide only when
	// its name or title names a version or says migrate or upgrade
	// (versionGuide).
	kindGuideDirs = map[string]bool{"migrate": true, "migration": true, "migrations": true, "upgrade": true, "upgrades": true}
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
			{regexp.MustCompile(`^(change ?log|changes|release history)$|^(v?\d+(\.\d+)* )?change ?log(( for|\s*[-–—:(]| v?\d).*)?$`), KindChangelog},
			{regexp.MustCompile(`^(.*\brelease notes|release notes (for|of)\b.*|release notes:? v?\d.*|release v?\d+(\.\d+)+|release announcements?)$`), KindRelease},
			// "CoreDNS-1.5.0 Release", "Kubernetes v1.30 release": a
			// project's name, a version and "release" names the release's
			// announcement.
			{regexp.MustCompile(`^[\w.]+[-_ ]v?\d+(\.\d+)+ release$`), KindRelease},
			{regexp.MustCompile(`^what['’]?s new\b`), KindWhatsNew},
			{regexp.MustCompile(`^(migrating|upgrading) (from|to)\b|^(migration|upgrade|upgrading) guide\b|^.*\b(migration|upgrade) guide$`), KindMigration},
			// "Upgrading Consul on Kubernetes", "Upgrading your plugin": a
			// title that starts with the act names the guide to do it ("Upgrade
			// strategy" may be a noun's, so only the gerund).
			{regexp.MustCompile(`^upgrading \S`), KindMigration},
			// "Deprecated APIs", "Deprecation notices", "Deprecations and
			// removals", "Feature deprecation notice and plans",
			// "Deprecated Engine Features": a notice of what is deprecated,
			// not a page that has a deprecated option or section.
			{regexp.MustCompile(`^(deprecations|deprecated \w+( \w+)?|(feature )?deprecation notices?( .*)?|deprecations? and removals?)$`), KindDeprecation},
		}
	})
)

// kindRule is a pattern of a name or title and the kind it means.
type kindRule struct {
	re   *regexp.Regexp
	kind string
}

// docKind returns the kind of the document at rel (its path inside its
// package) titled title, whose sections are headed heads (each heading
// once, in order): one of DocKinds, or "" for reference and guide pages
// and everything else. The file name is looked at first, then the
// folders (nearest first), then the title, then the headings.
func docKind(rel, title string, heads []string) string {
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
	// A lower-case "changelog" below the package's top folder whose
	// headings name no version is a page about a feature of that name (a
	// release tool's changelog settings), not a project's changelog.
	featureName := verb == "changelog" && strings.Contains(rel, "/") && versionHeads(heads) == 0 && !slices.ContainsFunc(heads, dateHeadRE().MatchString)
	rel = strings.ToLower(rel)
	base := path.Base(rel)
	name := strings.TrimSuffix(base, path.Ext(base))
	if folderIndexName(name) || verbName || featureName {
		name = ""
	}
	for _, k := range kindFileRE() {
		if name != "" && k.re.MatchString(name) {
			return k.kind
		}
	}
	t := strings.ToLower(strings.TrimSpace(title))
	dirs := strings.Split(path.Dir(rel), "/")
	for i := len(dirs) - 1; i >= 0; i-- {
		if k, ok := kindDirs[dirs[i]]; ok {
			return k
		}
		if kindGuideDirs[dirs[i]] && versionGuide(name, t) {
			return KindMigration
		}
	}
	for _, k := range kindTitleRE() {
		if k.re.MatchString(t) && (!featureName || k.kind != KindChangelog) {
			return k.kind
		}
	}
	// A page most of whose headings are versions ("1.16.0 (June 26,
	// 2023)", "v1.41 API changes", "Release 5.2.3") is a changelog,
	// whatever its name.
	if n := versionHeads(heads); n >= 3 && 2*n >= len(heads) {
		return KindChangelog
	}
	// A page titled with a version ("containerd 2.0", "Go 1.22") that
	// has a "What's new" section is the version's what's-new page.
	if titleVersionRE().MatchString(t) && slices.ContainsFunc(heads, whatsNewHead) {
		return KindWhatsNew
	}
	return ""
}

// titleVersionRE matches a title (lower-cased) that names a version.
var titleVersionRE = lazyre.New(`(^|[^\w.])v?\d+\.\d+(\.\d+)*($|[^\w.])`)

// whatsNewHead reports whether heading h is a "What's new" heading: the
// title rule of KindWhatsNew (kindTitleRE) applied to it.
func whatsNewHead(h string) bool {
	h = strings.ToLower(strings.TrimSpace(h))
	for _, k := range kindTitleRE() {
		if k.kind == KindWhatsNew {
			return k.re.MatchString(h)
		}
	}
	return false
}

// versionGuideRE matches a file name or title (lower-cased) that names a
// version or the act of moving between versions.
var versionGuideRE = lazyre.New(`(^|[^a-z0-9.])(v\d+([._-](\d+|x))*|\d+([._](\d+|x))+)($|[^a-z0-9])|migrat\w* (to|from)\b|upgrad`)

// dateHeadRE matches a heading that is a date ("2024-01-15", "January 15,
// 2024"): a dated changelog's entries (featureName).
var dateHeadRE = lazyre.New(`(?i)^(\d{4}-\d{2}-\d{2}|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(st|nd|rd|th)?,? \d{4})\b`)

// versionGuide reports whether a page named name (file name without
// extension, lower-cased; "" for an index page) titled title
// (lower-cased) in a folder such as migrate/ or upgrade/ is a guide to
// move between versions rather than a page about a task of that name.
func versionGuide(name, title string) bool {
	return (name != "" && versionGuideRE().MatchString(name)) || versionGuideRE().MatchString(title)
}

// versionHeadRE matches a heading (lower-cased) that names a release: a
// version first, written with a "v", or followed by nothing, a bracket, a
// parenthesis or a date ("1.16.0 (June 26, 2023)", "v1.41 API changes",
// "[2.1] - 2024-01-02", "release 5.2.3 (released …)", "3.14",
// "1.16.0-rc1"); not a numbered section ("2.1 Containers", "2.3.1 - A
// records") nor a major version alone ("v0 compatibility").
var versionHeadRE = lazyre.New(`^\[?(version |release )?(v\d+\.\d+[\w.+-]*|\d+\.\d+(\.\d+)*(\.x)?([-+.]?[a-z]+[\w.]*)?(\]|$| ?\((\d|[a-z]+\.? \d|released)| [-–—/:] \d| (released|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d))`)

// versionHeads is how many of heads name a release (versionHeadRE).
func versionHeads(heads []string) int {
	n := 0
	for _, h := range heads {
		if versionHead(h) {
			n++
		}
	}
	return n
}

// versionHead reports whether heading h names a release
// (versionHeadRE). Most headings do not start with a digit after an
// optional "[", "v", "version " or "release ", and are told so without
// the pattern: every heading of every page passes here.
func versionHead(h string) bool {
	h = strings.TrimSpace(h)
	p := strings.TrimPrefix(h, "[")
	p = strings.ToLower(p[:min(len(p), 10)])
	for _, w := range []string{"version ", "release "} {
		if strings.HasPrefix(p, w) {
			p = p[len(w):]
			break
		}
	}
	p = strings.TrimPrefix(p, "v")
	if p == "" || p[0] < '0' || p[0] > '9' {
		return false
	}
	return versionHeadRE().MatchString(strings.ToLower(h))
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

// folderIndexName reports whether name (a file's base name without its
// extension, in lower case) is a folder's index page's: index, readme,
// _index. Any folder may have one, whatever it is about.
func folderIndexName(name string) bool {
	return name == "index" || name == "readme" || name == "_index"
}
