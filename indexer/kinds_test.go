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
		{"docs/changelog.rst", "Changes", KindChangelog},
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
		if got := docKind(c.path, c.title); got != c.want {
			t.Errorf("docKind(%q, %q) = %q, want %q", c.path, c.title, got, c.want)
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
