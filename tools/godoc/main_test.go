package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestBadPackageReportsEachProblem(t *testing.T) {
	got, err := check(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"func Documented.Undocumented has no doc comment",
		"type Bare has no doc comment",
		"func Plain has no doc comment",
		"Linked: doc link [Missing] does not resolve",
		"Linked: doc link [Documented.Nope] does not resolve",
		"const Lonely has no doc comment",
		"var D has no doc comment",
	}
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("missing %q in:\n%s", w, all)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(got), len(want), all)
	}
}

func TestGoodPackageHasNoProblem(t *testing.T) {
	got, err := check(filepath.Join("testdata", "good"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("unexpected problems:\n%s", strings.Join(got, "\n"))
	}
}
