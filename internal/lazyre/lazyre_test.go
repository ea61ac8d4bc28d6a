package lazyre

import (
	"sync"
	"testing"
)

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = re() }()
	}
	wg.Wait()
	for _, g := range got[1:] {
		if g != got[0] {
			t.Fatal("New's function returned two different regexps")
		}
	}
	if !re().MatchString("aab") || re().MatchString("ba") {
		t.Fatal("the regexp does not match as compiled")
	}
}

func TestCheckAllReportsAnInvalidExpression(t *testing.T) {
	if err := CheckAll(); err != nil {
		t.Fatalf("before: %v", err)
	}
	bad := New(`a(`)
	if err := CheckAll(); err == nil {
		t.Fatal("CheckAll accepted `a(`")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("the first use of an invalid expression did not panic")
		}
		mu.Lock()
		exprs = exprs[:len(exprs)-1]
		mu.Unlock()
	}()
	bad()
}
