package dmn

import (
	"encoding/json"
	"os"
	"testing"
)

// FuzzParseDMN: any bytes either parse or give an error naming the
// resource; a parsed graph evaluates every decision without panicking.
// `go test ./internal/dmn -fuzz FuzzParseDMN` fuzzes longer.
func FuzzParseDMN(f *testing.F) {
	for _, p := range []string{"../engine/testdata/risk.dmn", "../../corpus/decision-hit-policies/policies.dmn",
		"../../corpus/decision-requirements/drg.dmn"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add(doc(ns13, table("x", "COLLECT", "SUM", oneOut, "[1..3]|x * 2", "not(2)|1")))
	vars := map[string]json.RawMessage{"x": json.RawMessage(`2`), "amount": json.RawMessage(`7000`),
		"applicant": json.RawMessage(`{"score": 650}`), "status": json.RawMessage(`"gold"`)}
	look := func(n string) (json.RawMessage, bool) { v, ok := vars[n]; return v, ok }
	f.Fuzz(func(t *testing.T, b []byte) {
		defs, err := Parse("f.dmn", b)
		if err != nil {
			if len(err.Error()) < 8 || err.Error()[:7] != "'f.dmn'" {
				t.Fatalf("error without the resource name: %v", err)
			}
			return
		}
		for _, d := range defs.Decisions {
			r := defs.Evaluate(d.ID, look)
			if !json.Valid(r.Output) {
				t.Fatalf("output %q is not JSON", r.Output)
			}
		}
	})
}
