package jobwire_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/internal/testengine"
)

type itOrder struct {
	OrderID string  `json:"orderId"`
	Amount  float64 `json:"amount"`
}

func (o itOrder) Validate() error {
	if o.OrderID == "" {
		return errors.New("orderId: missing")
	}
	return nil
}

type itReceipt struct {
	OrderID string  `json:"orderId"`
	Total   float64 `json:"total"`
}

// TestEngineTypedWorker runs a typed worker end to end against the reference
// engine: fetchVariables derived from the input type (the job carries only the
// input's variables and traceparent), the output completes the instance, and an instance with
// invalid input has its job failed with the field in the error message while
// the handler is never called for it.
func TestEngineTypedWorker(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "typed-order")
	var mu sync.Mutex
	seen := map[int64]string{} // instance key -> the job's variables as received
	mux := jobwire.NewMux()
	mux.Register("typed-order", jobwire.Handle(func(ctx context.Context, job *jobwire.Job, in itOrder) (itReceipt, error) {
		mu.Lock()
		seen[job.ProcessInstanceKey] = string(job.VariablesJSON())
		mu.Unlock()
		return itReceipt{OrderID: in.OrderID, Total: in.Amount * 2}, nil
	}))
	workers, err := c.Start(mux)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		defer closeW(t, w)
	}

	res := runInstances(t, c, pid, 1, map[string]any{"orderId": "o1", "amount": 21, "extra": strings.Repeat("x", 1000),
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"})
	var out map[string]any
	if err := json.Unmarshal(res[0].Variables, &out); err != nil || out["total"] != 42.0 || out["orderId"] != "o1" {
		t.Fatalf("instance result %s (%v)", res[0].Variables, err)
	}
	mu.Lock()
	got := seen[res[0].ProcessInstanceKey]
	mu.Unlock()
	var vars map[string]any
	_ = json.Unmarshal([]byte(got), &vars)
	var keys []string
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"amount", "orderId", "traceparent"}) {
		t.Errorf("the job carried %s, want only the derived orderId, amount and traceparent", got)
	}

	bad, err := c.CreateProcessInstance(context.Background(), jobwire.CreateInstance{BPMNProcessID: pid, Version: -1,
		Variables: map[string]any{"orderId": "o2", "amount": "12"}})
	if err != nil {
		t.Fatal(err)
	}
	ui := e.LiveView()
	var failed struct {
		ErrorMessage string `json:"errorMessage"`
		Retries      int32  `json:"retries"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for failed.ErrorMessage == "" {
		if time.Now().After(deadline) {
			t.Fatal("the invalid instance's job was not failed within 10 s")
		}
		time.Sleep(100 * time.Millisecond)
		resp, err := http.Get(ui + "/api/snapshot")
		if err != nil {
			continue
		}
		var snap struct {
			Jobs []struct {
				Instance     string `json:"instance"`
				ErrorMessage string `json:"errorMessage"`
				Retries      int32  `json:"retries"`
			} `json:"jobs"`
		}
		err = json.NewDecoder(resp.Body).Decode(&snap)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		for _, j := range snap.Jobs {
			if j.Instance == strconv.FormatInt(bad.ProcessInstanceKey, 10) && j.ErrorMessage != "" {
				failed.ErrorMessage, failed.Retries = j.ErrorMessage, j.Retries
			}
		}
	}
	if want := "jobwire: invalid input: amount: expected number, got string"; failed.ErrorMessage != want {
		t.Errorf("error message %q, want %q", failed.ErrorMessage, want)
	}
	if failed.Retries > 2 {
		t.Errorf("retries %d after the failure, want 2 or fewer (the failure counts)", failed.Retries)
	}
	mu.Lock()
	_, called := seen[bad.ProcessInstanceKey]
	mu.Unlock()
	if called {
		t.Error("the handler was called with invalid input")
	}
}
