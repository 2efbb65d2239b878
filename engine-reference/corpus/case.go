// Package corpus holds BPMN/DMN cases with the observations Zeebe produces
// for them. Each case is a directory with its resources, a case.json script
// (which says where its expectation comes from) and expected.txt, the golden
// observation lines. corpus_test.go runs every script against jobwire-engine
// dev and a jobwire-engine cluster over the gateway protocol and fails with a
// diff when what either observed differs from the golden lines. See README.md
// for the case and golden formats and the goldens' provenance.
package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Case is one case.json.
type Case struct {
	Name        string                `json:"-"`
	Dir         string                `json:"-"`
	Description string                `json:"description"`
	Source      Source                `json:"source"`
	Resources   []string              `json:"resources"`
	DeployCode  string                `json:"deployCode,omitempty"` // expected gRPC code of the deployment ("" = OK)
	Steps       []Step                `json:"steps"`
	Expect      map[string]InstanceEx `json:"expect"`
	// Golden: the observation lines of expected.txt (comments and blank
	// lines dropped).
	Golden []string `json:"-"`
}

// GoldenFile is the name of a case's golden observation lines.
const GoldenFile = "expected.txt"

// Source says where a case's expectation (expected.txt and the expect*
// fields of case.json) comes from.
type Source struct {
	// Kind: SourceRecorded, SourceDocs, SourceZeebeSource or SourceClientTests.
	Kind string `json:"kind"`
	// Ref: for recorded, RecordedRef; otherwise the address of the page or
	// file, pinned to a version (see refPrefixes).
	Ref string `json:"ref"`
	// Note: which statement, line or test of Ref the expectation follows.
	Note string `json:"note,omitempty"`
}

// Kinds of Source.
const (
	// SourceRecorded: the golden lines are what Zeebe 8.8.21 observed; only
	// the cases recorded then (recordedCases) may say so, since no Zeebe
	// engine runs here any more.
	SourceRecorded = "recorded"
	// SourceDocs: Zeebe's documented behaviour (docs.camunda.io).
	SourceDocs = "docs"
	// SourceZeebeSource: Zeebe's source, read (never copied), at a release tag.
	SourceZeebeSource = "zeebe-source"
	// SourceClientTests: an official client's own test suite.
	SourceClientTests = "client-tests"
)

// RecordedRef is the Ref of every recorded case.
const RecordedRef = "Zeebe 8.8.21 in-memory test engine, 2026-11-26"

// recordedCases are the cases whose golden lines were recorded from Zeebe
// 8.8.21 (README.md, Provenance). The list is closed: a new case takes its
// expectation from documentation, Zeebe's source or an official client's
// tests, and says which.
var recordedCases = map[string]bool{
	"business-rule-task": true, "business-rule-task-mappings": true, "business-rule-task-scopes": true,
	"call-activity": true, "call-activity-error": true, "decision-dmn-versions": true,
	"decision-hit-policies": true, "decision-requirements": true, "decision-unary-tests": true,
	"error-boundary": true, "exclusive-gateway": true, "feel-expressions": true, "inclusive-gateway": true,
	"inclusive-join-unstructured": true, "io-mapping": true, "io-mapping-edges": true,
	"message-boundary-interrupting": true, "message-boundary-non-interrupting": true, "message-buffered": true,
	"message-catch": true, "message-id-ttl": true, "message-parallel-waits": true, "message-start": true,
	"message-ttl-expiry": true, "multi-instance-call-activity": true, "multi-instance-error": true,
	"multi-instance-output-path": true, "multi-instance-parallel": true, "multi-instance-sequential": true,
	"parallel-gateway": true, "receive-task": true, "receive-task-timeout": true, "scope-propagation": true,
	"service-tasks": true, "subprocess-error": true, "subprocess-message-boundary": true,
	"timer-boundary-cycle": true, "timer-boundary-interrupting": true, "timer-intermediate": true,
	"timer-start": true,
}

// refPrefixes: where a Ref of each non-recorded kind may point.
var refPrefixes = map[string][]string{
	SourceDocs:        {"https://docs.camunda.io/docs/"},
	SourceZeebeSource: {"https://github.com/camunda/camunda/blob/8."},
	SourceClientTests: {
		"https://github.com/camunda/camunda/blob/8.",             // Java and Go clients
		"https://github.com/camunda/camunda-8-js-sdk/blob/",      // @camunda8/sdk
		"https://github.com/camunda-community-hub/pyzeebe/blob/", // pyzeebe
	},
}

func (s Source) validate(caseName string) error {
	switch s.Kind {
	case "":
		return fmt.Errorf("no source: say where the expectation comes from (kind %s, %s or %s, and ref)",
			SourceDocs, SourceZeebeSource, SourceClientTests)
	case SourceRecorded:
		if !recordedCases[caseName] {
			return fmt.Errorf("source %s: only the cases recorded from Zeebe 8.8.21 may say so; a new case's "+
				"expectation comes from %s, %s or %s", SourceRecorded, SourceDocs, SourceZeebeSource, SourceClientTests)
		}
		if s.Ref != RecordedRef {
			return fmt.Errorf("source %s: ref %q, expected %q", SourceRecorded, s.Ref, RecordedRef)
		}
		return nil
	}
	prefixes, ok := refPrefixes[s.Kind]
	if !ok {
		return fmt.Errorf("source kind %q: expected %s, %s or %s", s.Kind, SourceDocs, SourceZeebeSource, SourceClientTests)
	}
	for _, p := range prefixes {
		if strings.HasPrefix(s.Ref, p) && len(s.Ref) > len(p) && !strings.ContainsAny(s.Ref, " \t\n") {
			if s.Note == "" {
				return fmt.Errorf("source %s: a note must say which statement, line or test of %s the expectation follows", s.Kind, s.Ref)
			}
			return nil
		}
	}
	return fmt.Errorf("source %s: ref %q must start with one of %s (pinned to a version)", s.Kind, s.Ref, strings.Join(prefixes, ", "))
}

// readGolden reads a case's golden lines: every line of expected.txt that is
// neither blank nor a comment (#).
func readGolden(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no observation lines", path)
	}
	return out, nil
}

// Step is one action; exactly one field is set.
type Step struct {
	Create           *CreateStep   `json:"create,omitempty"`
	Job              *JobStep      `json:"job,omitempty"`
	Jobs             *JobsStep     `json:"jobs,omitempty"`
	Publish          *PublishStep  `json:"publish,omitempty"`
	SleepMs          int           `json:"sleepMs,omitempty"`
	EvaluateDecision *DecisionStep `json:"evaluateDecision,omitempty"`
	NoJob            *NoJobStep    `json:"noJob,omitempty"`
	Cancel           *CancelStep   `json:"cancel,omitempty"`
	// Restart: kill -9 the engine mid-way and start it again on its data
	// (dev: the engine process; cluster: the brokers leading the case's
	// partitions), then go on once it is healthy.
	Restart *RestartStep `json:"restart,omitempty"`
	// BroadcastSignal broadcasts a signal (BroadcastSignal RPC).
	BroadcastSignal *SignalStep `json:"broadcastSignal,omitempty"`
}

// SignalStep broadcasts a signal.
type SignalStep struct {
	Name       string          `json:"name"`
	Variables  json.RawMessage `json:"variables,omitempty"`
	ExpectCode string          `json:"expectCode,omitempty"`
	// SleepAfterMs: wait after the call, without a step of its own (a
	// signal reaches the other partitions asynchronously).
	SleepAfterMs int `json:"sleepAfterMs,omitempty"`
}

// RestartStep kills the engine with SIGKILL (no shutdown, no final
// snapshot) and restarts it on the same data directory: what was
// acknowledged must survive, from the snapshot and the log. A restart ends
// open CreateProcessInstanceWithResult calls, so none may be open then.
type RestartStep struct{}

// CreateStep creates an instance of the latest version of a process.
type CreateStep struct {
	ProcessID  string          `json:"processId"`
	Variables  json.RawMessage `json:"variables,omitempty"`
	WithResult bool            `json:"withResult,omitempty"`
	As         string          `json:"as,omitempty"`
	ExpectCode string          `json:"expectCode,omitempty"`
}

// JobStep activates exactly one job of a type (waiting up to ~10 s) and then
// completes it, throws an error, fails it, or leaves it (none given).
type JobStep struct {
	Type            string                     `json:"type"`
	ExpectVariables map[string]json.RawMessage `json:"expectVariables,omitempty"`
	ExpectHeaders   map[string]string          `json:"expectHeaders,omitempty"`
	ExpectElementID string                     `json:"expectElementId,omitempty"`
	Complete        json.RawMessage            `json:"complete,omitempty"`
	ThrowError      *ThrowErrorAction          `json:"throwError,omitempty"`
	Fail            *FailAction                `json:"fail,omitempty"`
}

// ThrowErrorAction is ThrowError on the activated job.
type ThrowErrorAction struct {
	ErrorCode    string          `json:"errorCode"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	Variables    json.RawMessage `json:"variables,omitempty"`
}

// FailAction is FailJob on the activated job (no back-off, so the job is
// activatable again at once).
type FailAction struct {
	Retries      int32  `json:"retries"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// JobsStep activates and completes Count jobs of a type, one batch after
// another, as they become activatable (multi-instance).
type JobsStep struct {
	Type     string          `json:"type"`
	Count    int             `json:"count"`
	Complete json.RawMessage `json:"complete,omitempty"`
}

// PublishStep publishes a message.
type PublishStep struct {
	Name           string          `json:"name"`
	CorrelationKey string          `json:"correlationKey"`
	Variables      json.RawMessage `json:"variables,omitempty"`
	TTLMs          int64           `json:"ttlMs,omitempty"`
	MessageID      string          `json:"messageId,omitempty"`
	ExpectCode     string          `json:"expectCode,omitempty"`
	// SleepAfterMs: wait after the call, without a step of its own (step
	// numbers, and so the golden lines, stay as they are). For a job that
	// exists before the publish and must show the message's variables: a
	// message reaches a subscription on another partition asynchronously.
	SleepAfterMs int `json:"sleepAfterMs,omitempty"`
}

// DecisionStep evaluates a decision by id (latest version) or, with ByKey, by
// the key the deployment of this case returned for that decision id.
type DecisionStep struct {
	DecisionID   string          `json:"decisionId"`
	ByKey        bool            `json:"byKey,omitempty"`
	Variables    json.RawMessage `json:"variables,omitempty"`
	ExpectOutput json.RawMessage `json:"expectOutput,omitempty"`
	// ExpectMatchedRules: 1-based rule indexes matched in the called decision.
	ExpectMatchedRules []int32 `json:"expectMatchedRules,omitempty"`
	// ExpectFailedDecision: the decision id an evaluation failure names.
	ExpectFailedDecision string `json:"expectFailedDecision,omitempty"`
	ExpectCode           string `json:"expectCode,omitempty"`
}

// NoJobStep asserts that no job of a type becomes activatable within WaitMs.
type NoJobStep struct {
	Type   string `json:"type"`
	WaitMs int    `json:"waitMs"`
}

// CancelStep cancels an instance; ExpectCode "NOT_FOUND" asserts it already
// ended, "" (OK) that it was still running (e.g. held by an incident).
type CancelStep struct {
	As         string `json:"as"`
	ExpectCode string `json:"expectCode,omitempty"`
}

// InstanceEx is the expected end of an instance created with withResult.
type InstanceEx struct {
	Completed bool                       `json:"completed"`
	Variables map[string]json.RawMessage `json:"variables,omitempty"`
}

// LoadCases reads every <dir>/<case>/case.json, sorted by name.
func LoadCases(dir string) ([]*Case, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*Case
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name(), "case.json")
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c := &Case{Name: e.Name(), Dir: filepath.Join(dir, e.Name())}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(c); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if c.Golden, err = readGolden(filepath.Join(c.Dir, GoldenFile)); err != nil {
			return nil, fmt.Errorf("case %s: golden observations: %v", c.Name, err)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (c *Case) validate() error {
	if c.Description == "" {
		return fmt.Errorf("no description")
	}
	if err := c.Source.validate(c.Name); err != nil {
		return err
	}
	if len(c.Resources) == 0 {
		return fmt.Errorf("no resources")
	}
	for _, r := range c.Resources {
		if _, err := os.Stat(filepath.Join(c.Dir, r)); err != nil {
			return fmt.Errorf("resource %s: %v", r, err)
		}
	}
	names := map[string]bool{}
	withResult := ""
	for i, s := range c.Steps {
		n := 0
		for _, set := range []bool{s.Create != nil, s.Job != nil, s.Jobs != nil, s.Publish != nil, s.SleepMs > 0,
			s.EvaluateDecision != nil, s.NoJob != nil, s.Cancel != nil, s.Restart != nil,
			s.BroadcastSignal != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("step %d: exactly one action expected, got %d", i+1, n)
		}
		if s.Create != nil && s.Create.As != "" {
			if names[s.Create.As] {
				return fmt.Errorf("step %d: instance name %q used twice", i+1, s.Create.As)
			}
			names[s.Create.As] = true
		}
		if s.Create != nil && s.Create.WithResult && withResult == "" {
			withResult = s.Create.As
		}
		if s.Restart != nil && withResult != "" {
			return fmt.Errorf("step %d: a restart ends the open withResult call of %q: create withResult instances after the restart", i+1, withResult)
		}
		if s.Cancel != nil && !names[s.Cancel.As] {
			return fmt.Errorf("step %d: cancel of unknown instance %q", i+1, s.Cancel.As)
		}
		if s.Job != nil {
			acts := 0
			for _, set := range []bool{len(s.Job.Complete) > 0, s.Job.ThrowError != nil, s.Job.Fail != nil} {
				if set {
					acts++
				}
			}
			if acts > 1 {
				return fmt.Errorf("step %d: a job step completes, throws or fails, not several", i+1)
			}
		}
		if s.Jobs != nil && s.Jobs.Count < 1 {
			return fmt.Errorf("step %d: jobs.count must be ≥ 1", i+1)
		}
	}
	for name := range c.Expect {
		if !names[name] {
			return fmt.Errorf("expect names unknown instance %q", name)
		}
	}
	return nil
}

// HasRestart: does a step restart the engine?
func (c *Case) HasRestart() bool {
	for _, s := range c.Steps {
		if s.Restart != nil {
			return true
		}
	}
	return false
}

// jobTypes and messages of the case: they must not be shared with other
// cases, because one cluster serves the whole run (a job or a buffered
// message left by one case must not be taken by another).
func (c *Case) sharedNames() []string {
	var out []string
	for _, s := range c.Steps {
		switch {
		case s.Job != nil:
			out = append(out, "job type "+s.Job.Type)
		case s.Jobs != nil:
			out = append(out, "job type "+s.Jobs.Type)
		case s.NoJob != nil:
			out = append(out, "job type "+s.NoJob.Type)
		case s.Publish != nil:
			out = append(out, "message "+s.Publish.Name)
		case s.BroadcastSignal != nil:
			out = append(out, "signal "+s.BroadcastSignal.Name)
		}
	}
	return out
}

// --- JSON values compared by meaning --------------------------------------

// canon decodes a JSON document into a value whose numbers are exact
// rationals printed in lowest terms, so 1, 1.0 and 1e0 compare equal.
func canon(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return canonValue(v), nil
}

func canonValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return "number:" + string(x)
		}
		return "number:" + r.RatString()
	case map[string]any:
		for k, e := range x {
			x[k] = canonValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = canonValue(e)
		}
		return x
	}
	return v
}

// show prints a canonical value back as compact JSON-ish text.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.ReplaceAll(string(b), `"number:`, `"#`)
}

// subset reports the first key of want whose value differs in got.
func subset(want map[string]json.RawMessage, got any) error {
	m, _ := got.(map[string]any)
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, err := canon(want[k])
		if err != nil {
			return fmt.Errorf("expected %s: %v", k, err)
		}
		g, ok := m[k]
		if !ok {
			return fmt.Errorf("variable %s missing (have %s)", k, show(got))
		}
		if show(w) != show(g) {
			return fmt.Errorf("variable %s = %s, expected %s", k, show(g), show(w))
		}
	}
	return nil
}
