package indexer

import (
	"strings"
	"testing"
)

// TestDocKind pins which documents are changelogs, release notes, blog
// posts, "what's new" pages and migration guides (issue 27), and which are
// not.
func TestDocKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ path, title, want string }{
		// changelogs
		{"CHANGELOG.md", "Changelog", KindChangelog},
		{"changelog.rst", "Changes", KindChangelog},
		{"changes.rst", "Changes", KindChangelog},
		{"CHANGES.txt", "CHANGES", KindChangelog},
		{"NEWS", "NEWS", KindChangelog},
		{"HISTORY.md", "History", KindChangelog},
		{"doc/build/changelog/changelog_14.rst", "1.4 Changelog", KindChangelog},
		{"changelog/unreleased_13/6135.rst", "6135", KindChangelog},
		{"docs/about.md", "Release History", KindChangelog},
		// release notes
		{"releases/v1.2.0.md", "v1.2.0", KindRelease},
		{"docs/release-notes.md", "Release notes", KindRelease},
		{"docs/relnotes/2.39.0.adoc", "Git v2.39 Release Notes", KindRelease},
		{"docs/v3.md", "Release notes for v3", KindRelease},
		{"docs/release.md", "Release 2.1.0", KindRelease},
		{"notes/coredns-1.5.0.md", "CoreDNS-1.5.0 Release", KindRelease},
		{"docs/k8s.md", "Kubernetes v1.30 release", KindRelease},
		{"docs/team.md", "Kubernetes v1.30 release team", ""}, // a name, a version and "release", then more: not the announcement
		{"docs/release.md", "Go release", ""},                 // no version
		// blog posts
		{"blog/2023/03/16/introducing-react-dev.md", "Introducing react.dev", KindBlog},
		{"_posts/2020-01-02-hello.md", "Hello", KindBlog},
		{"site/2021-05-04-announcing-v2.md", "Announcing v2", KindBlog},
		// what's new
		{"whatsnew/3.12.rst", "What's New In Python 3.12", KindWhatsNew},
		{"docs/whats-new.md", "What's new", KindWhatsNew},
		{"docs/v5.md", "What’s New in v5", KindWhatsNew},
		// migration and upgrade guides
		{"docs/migration.md", "Migration", KindMigration},
		{"doc/changelog/migration_20.rst", "Migrating to SQLAlchemy 2.0", KindMigration},
		{"docs/upgrading.md", "Upgrading", KindMigration},
		{"UPGRADE.md", "Upgrade", KindMigration},
		{"docs/upgrade-to-v3.md", "Upgrade to v3", KindMigration},
		{"guide/migrating-from-v4.md", "Migrating from v4", KindMigration},
		{"docs/moving.md", "Migration guide", KindMigration},
		{"docs/guides/v2.md", "Upgrading from 1.x", KindMigration},
		{"docs/upgrading/upgrade-to-1.10.mdx", "Upgrading to 1.10", KindMigration},
		{"docs/migrate-from-x.md", "Moving over", KindMigration},
		{"MIGRATE.md", "Migrate", KindMigration},
		{"docs/upgrade.md", "Upgrade guide", KindMigration}, // a command's name, but its title says it is a guide
		// not a kind: reference and guide pages about a task
		{"docs/upgrade-strategy-for-kubernetes-nodes.md", "Upgrade strategy for Kubernetes nodes", ""}, // upgrading nodes is a task, not a version's changes
		{"docs/database-migrations.md", "Database migrations", ""},                                     // a task too
		{"pages/common/history.md", "history", ""},                                                     // the shell command
		{"reference/commandline/history.md", "docker history", ""},
		{"docs/commands/operator/migrate.mdx", "operator migrate - Command", ""}, // the command's reference (Vault)
		{"cli/upgrade.md", "upgrade", ""},
		{"keps/sig-release/1733-release-notes/README.md", "Release Notes Improvements", ""}, // a proposal about release notes
		{"learn/thinking-in-react.md", "Thinking in React", ""},
		{"docs/news-feed.md", "Building a news feed", ""},
		{"ch15-02-deref.md", "Treating Smart Pointers Like Regular References", ""},
		{"docs/changing-the-config.md", "Changing the configuration", ""},
		{"README.md", "Project", ""},
	} {
		if got := docKind(c.path, c.title, nil); got != c.want {
			t.Errorf("docKind(%q, %q) = %q, want %q", c.path, c.title, got, c.want)
		}
	}
}

// TestDocKindFromContent pins the kinds told by a page's own words (round
// 10): its headings, a title that names a deprecation notice or the act
// of upgrading, and the folders (migrate/, upgrade/) whose pages are
// guides only when they name a version; and the pages that must not be
// taken for one.
func TestDocKindFromContent(t *testing.T) {
	t.Parallel()
	versions := []string{"1.16.0 (June 26, 2023)", "Bug fixes", "1.15.3 (June 1, 2023)", "Features", "1.15.2"}
	for _, c := range []struct {
		path, title string
		heads       []string
		want        string
	}{
		// a page whose headings are mostly versions, whatever its name
		{"docs/api/version-history.md", "Engine API version history", []string{"v1.41 API changes", "v1.40 API changes", "V1.39 API changes"}, KindChangelog},
		{"docs/news.rst", "News", versions, KindChangelog},
		{"history.rst", "History", []string{"Release 5.2.3 (released Sep 30, 2022)", "Bugs fixed", "Release 5.2.2 (released Sep 27, 2022)", "Release 5.2.1"}, KindChangelog},
		{"docs/releases.md", "Releases", []string{"[2.1] - 2024-01-02", "[2.0] - 2023-12-01", "[1.9.4] - 2023-11-01"}, KindChangelog},
		{"docs/changelog.rst", "Changes", versions, KindChangelog},
		{"CHANGES.md", "Changes", []string{"Release 5.2.0.post0 (released Sep 24, 2022)", "1.16.0-rc1 (June 12, 2023)", "v1.75.0 - 2026-11-06", "3.16.0 / 2026-11-04"}, KindChangelog},
		{"docs/notes.md", "Notes", []string{"Notes", "1.4.2", "1.4.1", "1.4.0", "Runtime, Tooling, SDK"}, KindChangelog},
		// numbered sections, a versioned API reference, one version section
		{"specification.md", "DNS-Based Service Discovery", []string{"0 - About This Document", "1 - Schema Version", "2.1 - Definitions", "2.2 - Records", "2.3.1 - A Record", "2.3.2 - SRV Records", "2.3.3 - PTR Record"}, ""},
		{"api/v1.18.md", "Engine API v1.18", []string{"1. Brief introduction", "2.1 Containers", "2.2 Images", "2.3 Misc", "3.1 Inside docker run"}, ""},
		{"extend/plugins.md", "Volume plugins", []string{"Volume plugins", "Changelog", "1.13.0", "1.12.0", "Command-line changes", "Create a volume", "Remove a volume", "Protocol"}, ""},
		{"v0-compatibility.md", "v0 Backwards Compatibility", []string{"v0 compatibility mode", "Using v0 with the CLI", "Using v0 with the SDK"}, ""},
		{"docs/supported-versions.md", "Supported versions", []string{"Supported versions", "Versioning scheme"}, ""}, // a table of versions, not a heading per release
		// a version's page with a "What's new" section
		{"docs/containerd-2.0.md", "containerd 2.0", []string{"containerd 2.0", "What's new", "Transfer service is now stable", "What's breaking"}, KindWhatsNew},
		{"docs/go1.22.md", "Go 1.22", []string{"Go 1.22", "What’s new in the toolchain"}, KindWhatsNew},
		{"api/v2.md", "API v2.0", []string{"API v2.0", "Endpoints", "New fields"}, ""},                  // a version's reference, no what's-new section
		{"docs/features.md", "Features", []string{"Features", "What's new", "Roadmap"}, ""},             // no version in the title
		{"docs/release-process.md", "Cutting a release", []string{"Cutting a release", "Tag v1.2"}, ""}, // not a release's announcement
		{"cmd/version.md", "version", []string{"version", "Options", "See also"}, ""},                   // the version command
		// a lower-case changelog below the top folder with no version: a feature's page
		{"customization/changelog.md", "Changelog", []string{"Changelog"}, ""},
		{"errors/no-history.md", "Changelog has only the latest commit", []string{"Changelog has only the latest commit"}, ""},
		{"changelog.md", "Changelog", []string{"Changelog"}, KindChangelog},
		// deprecation notices
		{"deprecated.md", "Deprecated Engine Features", nil, KindDeprecation},
		{"deprecations.md", "Deprecated APIs", nil, KindDeprecation},
		{"deprecations.rst", "Deprecations and Removals", nil, KindDeprecation},
		{"deprecation/features.md", "Feature Deprecation Notices", nil, KindDeprecation},
		{"docs/deprecations/template_functions.mdx", "Template Functions", nil, KindDeprecation},
		{"deprecations.md", "Deprecation notices", nil, KindDeprecation},
		{"api/cache.md", "Cache API", []string{"Cache API", "Options", "Deprecated"}, ""}, // a page with a Deprecated section
		{"prop_tgt/DEPRECATION.rst", "DEPRECATION", nil, ""},                              // a property named so
		{"variable/CMAKE_WARN_DEPRECATED.rst", "CMAKE_WARN_DEPRECATED", nil, ""},
		{"commands/npm-deprecate.md", "npm-deprecate", nil, ""},
		{"network/bgp.rst", "MetalLB BGP ControlPlane (deprecated)", nil, ""},
		// upgrade and migration guides by title and folder
		{"docs/k8s/upgrade/index.mdx", "Upgrading Consul on Kubernetes Components", nil, KindMigration},
		{"guides/1.7-plugin-upgrade.mdx", "Upgrading your plugin to be compatible with v1.7.0", nil, KindMigration},
		{"upgrading_your_network_tutorial.rst", "Upgrading Your Network Components", nil, KindMigration},
		{"migrate/v2-to-v3.md", "V3 Migration Documentation", nil, KindMigration},
		{"migrate/v3.md", "Migration Documentation", nil, KindMigration},
		{"docs/migration/v4.md", "Moving to the new API", nil, KindMigration},
		{"migration/composite.mdx", "Using Composite Types in Ent Schema", nil, ""}, // a database schema migration's feature
		{"migrations/trigger.mdx", "Using Database Triggers", nil, ""},
		{"commands/upgrade/plugins.md", "plugins", nil, ""},                       // a command group's reference
		{"enterprise/upgrades.mdx", "Automated Upgrades", nil, ""},                // a feature
		{"upgrade-strategy.md", "Upgrade strategy for Kubernetes nodes", nil, ""}, // a task
		{"commandline/plugin_upgrade.md", "plugin upgrade", nil, ""},
		// a version as the file name alone is not a kind: versioned references
		{"api/v1.24.md", "Engine API v1.24", nil, ""},
		{"docs/3.6.md", "Configuration", nil, ""},
	} {
		if got := docKind(c.path, c.title, c.heads); got != c.want {
			t.Errorf("docKind(%q, %q, %q) = %q, want %q", c.path, c.title, c.heads, got, c.want)
		}
	}
}

func TestQueryAsksForKinds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"changelog of the session api", true},
		{"release notes 2.0", true},
		{"what's new in flask", true},
		{"what’s new", true},
		{"how do I migrate from 1.3", true},
		{"upgrading to the new version", true},
		{"what changed in 3.12", true},
		{"deprecated query options", true},
		{"how do I create a session", false},
		{"what is a new branch", false},
		{"show the shell history", false},
		{"release a lock", true}, // a verb it cannot tell apart: no kind is ranked down, as before
	} {
		if got := queryAsksForKinds(strings.Fields(c.q)); got != c.want {
			t.Errorf("queryAsksForKinds(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

// Pages the first form of the content rules got wrong (round 10's second
// review): dated changelogs, changelog titles with a tail, "Release vX"
// headings, numbered sections, database migrations.
func TestDocKindAfterReview(t *testing.T) {
	for _, c := range []struct {
		path, title string
		heads       []string
		want        string
	}{
		// regression: a dated changelog below the top folder lost its kind (file rule before 48b9439)
		{"docs/changelog.md", "Changelog", []string{"Changelog", "January 15, 2024", "New dashboard", "December 2, 2023", "API keys"}, KindChangelog},
		{"docs/changelog.md", "Changelog", []string{"2024-01-15", "2023-12-02", "2023-11-03"}, KindChangelog},
		// Keep a Changelog / changesets layout: versions outnumbered by their Added/Fixed subheadings
		// titles that named a changelog before 48b9439
		{"docs/sdk/updates.md", "Changelog: Python SDK", nil, KindChangelog},
		{"docs/sdk/updates.md", "Changelog - v2.x", nil, KindChangelog},
		{"docs/sdk/updates.md", "Changelog (2024)", nil, KindChangelog},
		// "release v1.2.3": the regexp takes it, versionHead's prefilter does not
		{"docs/history.md", "History", []string{"Release v1.2.3", "Release v1.2.2", "Release v1.2.1", "Release v1.2.0"}, KindChangelog},
		// numbered sections taken for versions
		{"docs/faq.md", "FAQ", []string{"1.1 (Linux) Install", "1.2 (macOS) Install", "1.3 (Windows) Install"}, ""},
		{"docs/guide.md", "Guide", []string{"2.1 Step 1", "2.2 Step 2", "2.3 Step 3"}, ""},
		// database-migration pages pass the migrations/ gate by saying "migration" or by a number prefix
		{"docs/migrations/creating.md", "Creating migrations", nil, ""},
		{"docs/migrations/squashing.md", "Squashing migrations", nil, ""},
		{"docs/migrations/01-overview.md", "Overview", nil, ""},
		{"docs/migrate/index.md", "Prisma Migrate", nil, ""},
	} {
		if got := docKind(c.path, c.title, c.heads); got != c.want {
			t.Errorf("docKind(%q, %q, …) = %q, want %q", c.path, c.title, got, c.want)
		}
	}
}

func TestDocKindKeepAChangelogParsed(t *testing.T) {
	src := "# Project history\n\n## [Unreleased]\n\n## [1.1.0] - 2019-02-15\n\n### Added\n\nx\n\n### Changed\n\nx\n\n### Fixed\n\nx\n\n## [1.0.0] - 2017-06-20\n\n### Added\n\nx\n\n### Changed\n\nx\n\n### Removed\n\nx\n\n## [0.3.0] - 2015-12-03\n\n### Added\n\nx\n\n### Fixed\n\nx\n"
	p := parseMarkdown("docs/history.md", []byte(src), func(string) {})
	if got := docKind("docs/history.md", p.Title, p.Heads); got != KindChangelog {
		t.Errorf("Keep a Changelog page docs/history.md: kind %q (heads %q), want changelog", got, p.Heads)
	}
}
