package jobwire

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
	"github.com/jobwire/jobwire/sdk-go/internal/vectors"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The shared status-code vectors (conformance-tests/vectors/status-codes.json,
// read in place: the file is the single source for all four SDKs) against the
// client's error mapping (wrapError / errorFor) and Error.Retryable.
// The worker's decisions are checked in internal/worker/vectors_test.go.

type clientVectors struct {
	Codes   map[string]int `json:"codes"`
	Command struct {
		Cases []struct {
			Code      string `json:"code"`
			Retryable bool   `json:"retryable"`
		} `json:"cases"`
	} `json:"command"`
	Errors struct {
		Cases []struct {
			Code  string `json:"code"`
			Error string `json:"error"`
		} `json:"cases"`
	} `json:"errors"`
}

func loadClientVectors(t *testing.T) clientVectors {
	t.Helper()
	p, b, err := vectors.Read("status-codes.json")
	if err != nil {
		t.Fatal(err)
	}
	var v clientVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if len(v.Codes) != 16 || len(v.Command.Cases) != 16 || len(v.Errors.Cases) != 16 {
		t.Fatalf("%s: %d codes, %d command and %d errors cases, want 16 each",
			p, len(v.Codes), len(v.Command.Cases), len(v.Errors.Cases))
	}
	return v
}

func (v clientVectors) code(t *testing.T, name string) codes.Code {
	t.Helper()
	n, ok := v.Codes[name]
	if !ok {
		t.Fatalf("vector names unknown code %q", name)
	}
	return codes.Code(n)
}

func TestVectorsErrors(t *testing.T) {
	v := loadClientVectors(t)
	for _, c := range v.Errors.Cases {
		code := v.code(t, c.Code)
		err := wrapError("CreateProcessInstance", status.Error(code, "boom"))
		got := reflect.TypeOf(err)
		if got.Kind() == reflect.Pointer {
			got = got.Elem()
		}
		if got.Name() != c.Error {
			t.Errorf("errors %s: got %s, want %s", c.Code, got.Name(), c.Error)
		}
		var base *Error
		if !errors.As(err, &base) || base.Code != code {
			t.Errorf("errors %s: no Error base with the code: %v", c.Code, err)
		}
	}
}

func TestVectorsCommand(t *testing.T) {
	v := loadClientVectors(t)
	for _, c := range v.Command.Cases {
		err := wrapError("CreateProcessInstance", status.Error(v.code(t, c.Code), "boom"))
		var base *Error
		if !errors.As(err, &base) {
			t.Fatalf("command %s: not a Error: %v", c.Code, err)
		}
		if got := base.Retryable(); got != c.Retryable {
			t.Errorf("command %s: Retryable() = %v, want %v", c.Code, got, c.Retryable)
		}
		// The typed error itself answers too (the method is promoted).
		r, ok := err.(interface{ Retryable() bool })
		if !ok || r.Retryable() != c.Retryable {
			t.Errorf("command %s: the typed error %T does not answer Retryable() = %v", c.Code, err, c.Retryable)
		}
	}
}

// The poller uses the activation decision: FAILED_PRECONDITION on a poll is
// backed off quietly (the next poll comes after the first backoff step, no
// error reported); PERMISSION_DENIED is reported to the application.
func TestVectorsActivationDecisionReachesThePoller(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.Set(func(s *fakegw.Server) {
		s.ActivateErr = func(n int) error {
			switch n {
			case 1:
				return status.Error(codes.FailedPrecondition, "not now")
			case 2:
				return status.Error(codes.PermissionDenied, "no")
			}
			return nil
		}
	})
	var mu sync.Mutex
	var reported []codes.Code
	w, err := c.NewWorker("vec", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithErrorListener(func(err error) {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, Code(err))
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	waitFor(t, "the PERMISSION_DENIED reported", 2*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(reported) > 0
	})
	mu.Lock()
	got := append([]codes.Code(nil), reported...)
	mu.Unlock()
	if len(got) != 1 || got[0] != codes.PermissionDenied {
		t.Fatalf("reported %v, want only PermissionDenied (FAILED_PRECONDITION is backed off quietly)", got)
	}
	if _, times := gw.Polls(); len(times) < 2 || times[1].Sub(times[0]) > time.Second {
		t.Fatalf("second poll not after the first backoff step: %v", times)
	}
}
