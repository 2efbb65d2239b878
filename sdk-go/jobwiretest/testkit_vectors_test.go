package jobwiretest_test

// The shared cases of the four test kits (conformance-tests/vectors/testkit.json),
// run through this kit's public API.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/jobwiretest"
)

var vectorsDir = filepath.Join("..", "..", "conformance-tests", "vectors")

type kitCase struct {
	Name  string           `json:"name"`
	Steps []map[string]any `json:"steps"`
}

func TestSharedCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(vectorsDir, "testkit.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []kitCase `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) { runCase(t, c) })
	}
}

func num(v any) int64 {
	n, err := v.(json.Number).Int64()
	if err != nil {
		panic(err)
	}
	return n
}

func runCase(t *testing.T, c kitCase) {
	eng := jobwiretest.Start(t)
	inst := map[string]int64{}
	for i, s := range c.Steps {
		switch {
		case s["deploy"] != nil:
			eng.Deploy(filepath.Join(vectorsDir, "testkit", s["deploy"].(string)))
		case s["create"] != nil:
			inst[s["as"].(string)] = eng.CreateInstance(s["create"].(string), s["variables"])
		case s["advance_clock_ms"] != nil:
			eng.AdvanceClock(time.Duration(num(s["advance_clock_ms"])) * time.Millisecond)
		case s["set_clock_from_now_ms"] != nil:
			eng.SetClock(eng.Clock().Add(time.Duration(num(s["set_clock_from_now_ms"])) * time.Millisecond))
		case s["expect_clock_near_wall_ms"] != nil:
			if d := eng.Clock().Sub(time.Now()).Abs(); d > time.Duration(num(s["expect_clock_near_wall_ms"]))*time.Millisecond {
				t.Fatalf("step %d: engine clock is %s off wall time", i, d)
			}
		case s["await_completed"] != nil:
			got := eng.AwaitCompleted(inst[s["await_completed"].(string)])
			want, _ := s["variables"].(map[string]any)
			for k, v := range want {
				if !reflect.DeepEqual(got[k], v) {
					t.Fatalf("step %d: variable %s = %#v, want %#v (all: %v)", i, k, got[k], v, got)
				}
			}
		case s["await_incident"] != nil:
			inc := eng.AwaitIncident(inst[s["await_incident"].(string)])
			if want, ok := s["type"].(string); ok && inc.Type != want {
				t.Fatalf("step %d: incident type %s, want %s (%s)", i, inc.Type, want, inc.Message)
			}
		case s["complete_jobs"] != nil:
			n, err := eng.TryCompleteJobs(s["complete_jobs"].(string), s["variables"])
			if want, ok := s["expect_error"].(string); ok {
				if status.Code(err).String() != codeName(want) {
					t.Fatalf("step %d: error %v, want %s", i, err, want)
				}
				continue
			}
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if want, ok := s["expect_count"]; ok && int64(n) != num(want) {
				t.Fatalf("step %d: completed %d jobs, want %d", i, n, num(want))
			}
		case s["jobs"] != nil:
			if n := len(eng.Jobs(s["jobs"].(string))); int64(n) != num(s["expect_count"]) {
				t.Fatalf("step %d: %d jobs, want %d", i, n, num(s["expect_count"]))
			}
		case s["reset"] != nil:
			eng.Reset()
		case s["expect_no_instance"] != nil:
			if eng.HasInstance(inst[s["expect_no_instance"].(string)]) {
				t.Fatalf("step %d: instance %s still known after the reset", i, s["expect_no_instance"])
			}
		case s["fault"] != nil:
			if s["fault"] != "resource_exhausted" {
				t.Fatalf("step %d: unknown fault %v", i, s["fault"])
			}
			eng.InjectResourceExhausted(int(num(s["count"])))
		case s["clear_faults"] != nil:
			eng.ClearFaults()
		default:
			t.Fatalf("step %d: unknown step %v", i, s)
		}
	}
}

// codeName maps "RESOURCE_EXHAUSTED" to grpc-go's "ResourceExhausted".
func codeName(s string) string {
	out, up := []byte{}, true
	for _, ch := range []byte(s) {
		switch {
		case ch == '_':
			up = true
		case up:
			out, up = append(out, ch), false
		default:
			out = append(out, ch-'A'+'a')
		}
	}
	return string(out)
}
