package jobwiretest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/jobwiretest"
)

func TestRunHandlerCompletesWithVariables(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) {
		var in struct {
			OrderID int64  `json:"orderId"`
			Big     uint64 `json:"big"`
		}
		if err := job.DecodeVariables(&in); err != nil {
			return nil, err
		}
		return map[string]any{"paid": true, "orderId": in.OrderID, "region": job.CustomHeaders()["region"],
			"big": in.Big, "type": job.Type, "retries": job.Retries}, nil
	}
	job := jobwiretest.NewJob(jobwiretest.WithVariables(`{"orderId": 42, "big": 9007199254740993}`),
		jobwiretest.WithHeaders(map[string]string{"region": "eu"}), jobwiretest.WithJobType("payment"), jobwiretest.WithRetries(5))
	res, err := jobwiretest.RunHandler(context.Background(), h, job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeCompleted || res.Err != nil {
		t.Fatalf("outcome %s err %v", res.Outcome, res.Err)
	}
	want := map[string]any{"paid": true, "orderId": json.Number("42"), "region": "eu", "big": json.Number("9007199254740993"),
		"type": "payment", "retries": json.Number("5")}
	for k, v := range want {
		if res.Variables[k] != v {
			t.Errorf("variable %s = %#v, want %#v (all: %s)", k, res.Variables[k], v, res.VariablesJSON)
		}
	}
	if len(res.Variables) != len(want) {
		t.Errorf("variables %s", res.VariablesJSON)
	}
}

func TestRunHandlerErrorFailsWithRetriesMinusOne(t *testing.T) {
	boom := errors.New("card declined")
	h := func(ctx context.Context, job *jobwire.Job) (any, error) { return nil, boom }
	res, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(jobwiretest.WithRetries(3)),
		jobwiretest.WithRetryBackOff(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeFailed || res.Retries != 2 || res.ErrorMessage != "card declined" ||
		res.RetryBackOff != 2*time.Second || !errors.Is(res.Err, boom) {
		t.Fatalf("got %+v", res)
	}
}

func TestRunHandlerPanicFails(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) { panic("nil map") }
	res, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(jobwiretest.WithRetries(1)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeFailed || res.Retries != 0 || !strings.Contains(res.ErrorMessage, "nil map") ||
		res.Err == nil || !strings.Contains(res.Err.Error(), "nil map") {
		t.Fatalf("got %+v", res)
	}
}

func TestRunHandlerBPMNError(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) {
		return nil, &jobwire.JobError{Code: "OUT_OF_STOCK", Message: "item 7 sold out", Variables: map[string]any{"item": 7}}
	}
	res, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob())
	if err != nil {
		t.Fatal(err)
	}
	var je *jobwire.JobError
	if res.Outcome != jobwiretest.OutcomeBPMNError || res.ErrorCode != "OUT_OF_STOCK" || res.ErrorMessage != "item 7 sold out" ||
		res.Variables["item"] != json.Number("7") || !errors.As(res.Err, &je) {
		t.Fatalf("got %+v", res)
	}
}

func TestRunHandlerManualCompletion(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) {
		if err := job.Fail(ctx, "try later", jobwire.FailRetries(9), jobwire.FailRetryBackOff(time.Minute)); err != nil {
			return nil, err
		}
		return nil, nil
	}
	res, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(), jobwiretest.WithAutoComplete(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeFailed || res.Retries != 9 || res.RetryBackOff != time.Minute || res.ErrorMessage != "try later" {
		t.Fatalf("got %+v", res)
	}
	// Settled from another goroutine after the handler returned: the worker
	// holds the job until then.
	h2 := func(ctx context.Context, job *jobwire.Job) (any, error) {
		go func() {
			time.Sleep(50 * time.Millisecond)
			_ = job.Complete(context.Background(), map[string]any{"late": true})
		}()
		return nil, nil
	}
	res, err = jobwiretest.RunHandler(context.Background(), h2, jobwiretest.NewJob(), jobwiretest.WithAutoComplete(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeCompleted || res.Variables["late"] != true {
		t.Fatalf("got %+v", res)
	}
}

func TestRunHandlerCancelAfterHandsJobBack(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return map[string]any{"done": true}, nil
		}
	}
	start := time.Now()
	res, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(jobwiretest.WithRetries(3)),
		jobwiretest.WithCancelAfter(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeCancelled || res.Retries != 3 || !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("got %+v", res)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %s", d)
	}
}

func TestRunHandlerAutoExtend(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) {
		time.Sleep(350 * time.Millisecond)
		return nil, nil
	}
	res, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(),
		jobwiretest.WithAutoExtend(true), jobwiretest.WithJobTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeCompleted || len(res.Extensions) < 2 {
		t.Fatalf("got %+v", res)
	}
	for _, d := range res.Extensions {
		if d != 200*time.Millisecond {
			t.Fatalf("extension %s, want the job timeout", d)
		}
	}
	// Off (the default): none.
	res, err = jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(), jobwiretest.WithJobTimeout(time.Second))
	if err != nil || len(res.Extensions) != 0 {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestRunHandlerTimeout(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	_, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(), jobwiretest.WithTimeout(100*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "not settled within") {
		t.Fatalf("err %v", err)
	}
}

func TestNewJobRejectsNonObjectVariables(t *testing.T) {
	h := func(ctx context.Context, job *jobwire.Job) (any, error) { return nil, nil }
	if _, err := jobwiretest.RunHandler(context.Background(), h, jobwiretest.NewJob(jobwiretest.WithVariables("[1]"))); err == nil {
		t.Fatal("no error for a JSON array")
	}
}
