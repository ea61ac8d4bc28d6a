package wizard

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/termenv"
)

// audit17 finding 11: a setup from another registry that installs nothing
// (every chosen context unreadable) leaves the manifest's registry, and
// says so; a change of registry is said.
func TestSetupInstallingNothingKeepsRegistry(t *testing.T) {
	t.Parallel()
	man := installedAPI()
	man.Registry = "good.json"
	ws := &fakeWorkspace{man: man}
	acc := &fakeAccess{deny: map[string]bool{"https://git.example/secret.git": true}}
	var out, log bytes.Buffer
	sum, err := Run(context.Background(), ws, acc, Options{Registry: testRegistry(), RegistryLocation: "bad.json", Select: []string{"secret"}, Yes: true, Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !partial(sum) {
		t.Errorf("not partial: %+v", sum)
	}
	if ws.registry != "" {
		t.Errorf("registry saved as %q although nothing was installed", ws.registry)
	}
	if !strings.Contains(log.String(), "registry not saved") || !strings.Contains(log.String(), "good.json") {
		t.Errorf("log %q: want it to say the registry was not saved and which one stays", log.String())
	}
	if strings.Contains(out.String(), "Nothing installed") || !strings.Contains(log.String(), "Nothing installed") {
		t.Errorf("out %q log %q: \"Nothing installed\" belongs on the log (stderr)", out.String(), log.String())
	}
}

// TestSetupSaysRegistryChange: the line names both registries, with the
// terminal's arrow: "->" in a locale without UTF-8 (cli21).
func TestSetupSaysRegistryChange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		utf8 bool
		want string
	}{{true, "registry: old.json → new.json\n"}, {false, "registry: old.json -> new.json\n"}} {
		man := installedAPI()
		man.Registry = "old.json"
		ws := &fakeWorkspace{man: man}
		var log bytes.Buffer
		if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "new.json", Select: []string{"Platform Guide"}, Yes: true, Log: &log, Symbols: termenv.SymbolsFor(c.utf8)}); err != nil {
			t.Fatal(err)
		}
		if ws.registry != "new.json" || !strings.Contains(log.String(), c.want) {
			t.Errorf("utf8 %v: registry %q, log %q, want %q", c.utf8, ws.registry, log.String(), c.want)
		}
	}
}
