package corpus

import (
	"encoding/json"
	"strings"
	"testing"
)

// The runner must notice a golden expectation the engine does not meet and a
// difference between two engines' observations; otherwise the corpus could
// not fail.
func TestRunnerReportsUnmetExpectations(t *testing.T) {
	cases, err := LoadCases(".")
	if err != nil {
		t.Fatal(err)
	}
	var c *Case
	for _, x := range cases {
		if x.Name == "service-tasks" {
			c = x
		}
	}
	if c == nil {
		t.Fatal("case service-tasks missing")
	}
	bad := *c
	bad.Expect = map[string]InstanceEx{"i1": {Completed: true, Variables: map[string]json.RawMessage{"trackingId": json.RawMessage(`"T-10"`)}}}
	bad.Steps = append([]Step(nil), c.Steps...)
	bad.Steps[1].Job = &JobStep{Type: "corpus-st-charge", ExpectHeaders: map[string]string{"currency": "USD"},
		Fail: c.Steps[1].Job.Fail}
	r := runJobwire(t, &bad)
	all := strings.Join(r.Errs, "\n")
	for _, want := range []string{`variable trackingId = "T-9", expected "T-10"`, `variable currency = "EUR", expected "USD"`} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q lack %q", all, want)
		}
	}
	good := runJobwire(t, c)
	if len(good.Errs) > 0 {
		t.Fatalf("unexpected errors: %v", good.Errs)
	}
	other := &Run{Engine: "other", Lines: append([]string(nil), good.Lines...)}
	other.Lines[3] = strings.Replace(other.Lines[3], "retries 5", "retries 3", 1)
	if d := Diff(good, other); !strings.Contains(d, "retries 3") || !strings.Contains(d, "retries 5") {
		t.Fatalf("diff %q misses the changed line", d)
	}
	if d := Diff(good, &Run{Engine: "short", Lines: good.Lines[:2]}); d == "" {
		t.Fatal("a shorter run is not reported")
	}
}

func TestCanonicalNumbers(t *testing.T) {
	a, _ := canon([]byte(`{"x": 1.0, "y": [2e1, 0.10]}`))
	b, _ := canon([]byte(`{"y": [20, 0.1], "x": 1}`))
	if show(a) != show(b) {
		t.Fatalf("%s != %s", show(a), show(b))
	}
	c, _ := canon([]byte(`{"x": 1.000001}`))
	if show(a) == show(c) {
		t.Fatal("different numbers compare equal")
	}
}

func TestSharedNamesRefused(t *testing.T) {
	a := &Case{Name: "a", Steps: []Step{{Job: &JobStep{Type: "t"}}}}
	b := &Case{Name: "b", Steps: []Step{{NoJob: &NoJobStep{Type: "t"}}}}
	if err := checkShared([]*Case{a, b}); err == nil {
		t.Fatal("a job type in two cases was accepted")
	}
}
