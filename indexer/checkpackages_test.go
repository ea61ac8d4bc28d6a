package indexer

import (
	"errors"
	"strings"
	"testing"
)

// checkPackages names the indexed packages, or says there is none.
func TestCheckPackagesNamesTheIndexed(t *testing.T) {
	if err := checkPackages([]string{"b"}, []string{"b", "a"}); err != nil {
		t.Errorf("a known package: %v", err)
	}
	err := checkPackages([]string{"x"}, []string{"b", "a"})
	if !errors.Is(err, ErrUnknownPackage) || !strings.HasSuffix(err.Error(), "(indexed: a, b)") {
		t.Errorf("an unknown package: %v", err)
	}
	err = checkPackages([]string{"x"}, nil)
	if !errors.Is(err, ErrUnknownPackage) || !strings.HasSuffix(err.Error(), "(no package is indexed)") {
		t.Errorf("nothing indexed: %v", err)
	}
}
