package main

import "testing"

// Two sides about even: the continuity correction must not push p above 1
// (it printed 1.1077 before).
func TestWilcoxonAtMostOne(t *testing.T) {
	for _, d := range [][]float64{
		{1, -1},
		{0.5, -0.5, 0.25, -0.25},
		{1, -0.5, -0.5},
	} {
		if p := wilcoxon(d); p > 1 || p < 0 {
			t.Errorf("wilcoxon(%v) = %v, want a p-value in [0, 1]", d, p)
		}
	}
	if p := wilcoxon([]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}); p > 0.01 {
		t.Errorf("ten changes all one way: p = %v, want < 0.01", p)
	}
}
