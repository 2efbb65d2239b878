// Package corpus holds BPMN/DMN cases that must run to the same end state on
// jobwire-engine dev and on the real in-memory Zeebe engine
// (tools/zeebe-engine). Each case is a directory with its resources and a
// case.json script; corpus_test.go runs every script against both engines over
// the gateway protocol and compares what each observed with the other and
// with the golden expectation. See README.md for the case format.
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
	Resources   []string              `json:"resources"`
	DeployCode  string                `json:"deployCode,omitempty"` // expected gRPC code of the deployment ("" = OK)
	Steps       []Step                `json:"steps"`
	Expect      map[string]InstanceEx `json:"expect"`
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
}

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

// FailAction is FailJob on the activated job (no back-off: Zeebe's test
// engine never moves its clock).
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
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (c *Case) validate() error {
	if c.Description == "" {
		return fmt.Errorf("no description")
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
	for i, s := range c.Steps {
		n := 0
		for _, set := range []bool{s.Create != nil, s.Job != nil, s.Jobs != nil, s.Publish != nil, s.SleepMs > 0,
			s.EvaluateDecision != nil, s.NoJob != nil, s.Cancel != nil} {
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

// jobTypes and messages of the case: they must not be shared with other
// cases, because one Zeebe serves the whole run (a job or a buffered message
// left by one case must not be taken by another).
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
