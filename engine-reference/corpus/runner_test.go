package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The runner must notice an expectation of case.json the engine does not
// meet and an observation that differs from the golden lines; otherwise the
// corpus could not fail.
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
	r := runDev(t, &bad)
	all := strings.Join(r.Errs, "\n")
	for _, want := range []string{`variable trackingId = "T-9", expected "T-10"`, `variable currency = "EUR", expected "USD"`} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q lack %q", all, want)
		}
	}
	good := runDev(t, c)
	if len(good.Errs) > 0 {
		t.Fatalf("unexpected errors: %v", good.Errs)
	}
	if d := DiffGolden(c.Golden, good); d != "" {
		t.Fatalf("the engine differs from %s:\n%s", GoldenFile, d)
	}
	// One changed golden line, a missing one and an extra one are reported.
	changed := append([]string(nil), c.Golden...)
	changed[3] = strings.Replace(changed[3], "retries 5", "retries 3", 1)
	if changed[3] == c.Golden[3] {
		t.Fatalf("golden line 4 %q has no 'retries 5'", c.Golden[3])
	}
	if d := DiffGolden(changed, good); !strings.Contains(d, "line 4") || !strings.Contains(d, "retries 3") || !strings.Contains(d, "retries 5") {
		t.Fatalf("diff %q misses the changed line", d)
	}
	if d := DiffGolden(c.Golden[:len(c.Golden)-1], good); !strings.Contains(d, "- golden:  (no line)") {
		t.Fatalf("an observation beyond the golden lines is not reported: %q", d)
	}
	if d := DiffGolden(c.Golden, &Run{Engine: "short", Lines: good.Lines[:2]}); !strings.Contains(d, "+ short:   (no line)") {
		t.Fatalf("a shorter run is not reported: %q", d)
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

func TestGoldenFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), GoldenFile)
	if err := os.WriteFile(p, []byte("# comment\n\ndeploy: OK\r\nstep 1 create x: OK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readGolden(p)
	if err != nil || strings.Join(got, "|") != "deploy: OK|step 1 create x: OK" {
		t.Fatalf("readGolden = %q, %v", got, err)
	}
	if err := os.WriteFile(p, []byte("# only a comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readGolden(p); err == nil {
		t.Fatal("a golden file without observation lines was accepted")
	}
}

// A case must say where its expectation comes from; only the cases recorded
// from Zeebe 8.8.21 may say "recorded".
func TestSourceRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  Source
		want string // "" = accepted
	}{
		{"service-tasks", Source{Kind: SourceRecorded, Ref: RecordedRef}, ""},
		{"service-tasks", Source{Kind: SourceRecorded, Ref: "zeebe 8.9"}, "ref"},
		{"a-new-case", Source{Kind: SourceRecorded, Ref: RecordedRef}, "only the cases recorded"},
		{"a-new-case", Source{}, "no source"},
		{"a-new-case", Source{Kind: "guess", Ref: "https://docs.camunda.io/docs/x"}, "source kind"},
		{"a-new-case", Source{Kind: SourceDocs, Ref: "https://docs.camunda.io/docs/components/modeler/bpmn/timer-events/",
			Note: "Timer boundary events: an interrupting one terminates the activity"}, ""},
		{"a-new-case", Source{Kind: SourceDocs, Ref: "https://docs.camunda.io/docs/components/modeler/bpmn/timer-events/"}, "note"},
		{"a-new-case", Source{Kind: SourceDocs, Ref: "https://example.com/blog", Note: "n"}, "must start with"},
		{"a-new-case", Source{Kind: SourceZeebeSource, Ref: "https://github.com/camunda/camunda/blob/main/x.java", Note: "n"}, "must start with"},
		{"a-new-case", Source{Kind: SourceZeebeSource, Ref: "https://github.com/camunda/camunda/blob/8.8.21/zeebe/engine/src/main/java/X.java", Note: "n"}, ""},
		{"a-new-case", Source{Kind: SourceClientTests, Ref: "https://github.com/camunda-community-hub/pyzeebe/blob/v4.7.0/tests/integration/test_x.py", Note: "test_y"}, ""},
	} {
		err := tc.src.validate(tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %+v refused: %v", tc.name, tc.src, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %+v: error %v, expected one naming %q", tc.name, tc.src, err, tc.want)
		}
	}
	// Every recorded case exists (the list is not padded with names a new
	// case could take).
	cases, err := LoadCases(".")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, c := range cases {
		have[c.Name] = true
	}
	for n := range recordedCases {
		if !have[n] {
			t.Errorf("recorded case %s has no directory", n)
		}
	}
}
