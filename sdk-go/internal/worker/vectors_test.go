package worker

import (
	"encoding/json"
	"testing"

	"github.com/jobwire/jobwire/sdk-go/internal/vectors"
	"google.golang.org/grpc/codes"
)

// The shared status-code vectors (conformance-tests/vectors/status-codes.json,
// read in place: the file is the single source for all four SDKs) against the
// worker's decisions: classifyOutcome and classifyActivation.

type statusVectors struct {
	Codes   map[string]int `json:"codes"`
	Outcome struct {
		Cases []struct {
			Code     string `json:"code"`
			Message  string `json:"message"`
			Decision string `json:"decision"`
		} `json:"cases"`
	} `json:"outcome"`
	Activation struct {
		Cases []struct {
			Call     string `json:"call"`
			Code     string `json:"code"`
			Decision string `json:"decision"`
		} `json:"cases"`
	} `json:"activation"`
}

func loadStatusVectors(t *testing.T) statusVectors {
	t.Helper()
	p, b, err := vectors.Read("status-codes.json")
	if err != nil {
		t.Fatal(err)
	}
	var v statusVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if len(v.Codes) != 16 {
		t.Fatalf("%s: %d codes, want the 16 non-OK gRPC codes", p, len(v.Codes))
	}
	return v
}

func vectorCode(t *testing.T, v statusVectors, name string) codes.Code {
	t.Helper()
	n, ok := v.Codes[name]
	if !ok {
		t.Fatalf("vector names unknown code %q", name)
	}
	return codes.Code(n)
}

func TestVectorsOutcome(t *testing.T) {
	v := loadStatusVectors(t)
	if len(v.Outcome.Cases) < len(v.Codes) {
		t.Fatalf("outcome: %d cases, fewer than the %d codes", len(v.Outcome.Cases), len(v.Codes))
	}
	for _, c := range v.Outcome.Cases {
		got := classifyOutcome(vectorCode(t, v, c.Code), c.Message)
		if string(got) != c.Decision {
			t.Errorf("outcome %s %q: got %s, want %s", c.Code, c.Message, got, c.Decision)
		}
	}
}

func TestVectorsActivation(t *testing.T) {
	v := loadStatusVectors(t)
	if len(v.Activation.Cases) != 2*len(v.Codes) {
		t.Fatalf("activation: %d cases, want %d (poll and stream for every code)", len(v.Activation.Cases), 2*len(v.Codes))
	}
	for _, c := range v.Activation.Cases {
		if c.Call != string(callPoll) && c.Call != string(callStream) {
			t.Fatalf("activation: unknown call %q", c.Call)
		}
		got := classifyActivation(activationCall(c.Call), vectorCode(t, v, c.Code))
		if string(got) != c.Decision {
			t.Errorf("activation %s %s: got %s, want %s", c.Call, c.Code, got, c.Decision)
		}
	}
}
