package jobwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// Unit tests of the five resent client commands against the in-process fake
// gateway: the request built from the typed input, the result mapped, the
// typed errors, and the resend rule of docs/worker-semantics.md ("Client
// commands: which are resent").

func commandClient(t *testing.T) (*Client, *fakegw.Server) {
	t.Helper()
	gw := fakegw.Start(t)
	c, _ := recordingClient(t, gw)
	return c, gw
}

func wantRequest(t *testing.T, gw *fakegw.Server, method string, want proto.Message) {
	t.Helper()
	reqs := gw.Requests(method)
	if len(reqs) != 1 {
		t.Fatalf("%s: %d requests, want 1", method, len(reqs))
	}
	if !proto.Equal(reqs[0], want) {
		t.Fatalf("%s request:\n got  %v\n want %v", method, reqs[0], want)
	}
}

func TestResendRuleByStatus(t *testing.T) {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		wantEval := c == codes.Unavailable || c == codes.ResourceExhausted
		if got := resendEvaluation(c); got != wantEval {
			t.Errorf("resendEvaluation(%s) = %v, want %v", c, got, wantEval)
		}
		wantChange := c == codes.ResourceExhausted
		if got := resendStateChange(c); got != wantChange {
			t.Errorf("resendStateChange(%s) = %v, want %v", c, got, wantChange)
		}
	}
}

func TestFakeEvaluateDecisionRequestAndResult(t *testing.T) {
	c, gw := commandClient(t)
	gw.Set(func(s *fakegw.Server) {
		s.Commands.Decision = &pb.EvaluateDecisionResponse{DecisionKey: 2251799813685300, DecisionId: "approval", DecisionName: "Approval",
			DecisionVersion: 3, DecisionRequirementsId: "drg", DecisionRequirementsKey: 2251799813685299,
			DecisionOutput: `{"limit":9007199254740993}`, TenantId: "<default>", DecisionInstanceKey: 77, DecisionEvaluationKey: 78,
			EvaluatedDecisions: []*pb.EvaluatedDecision{
				{DecisionKey: 11, DecisionId: "risk", DecisionName: "Risk", DecisionVersion: 1, DecisionType: "DECISION_TABLE", DecisionOutput: `"low"`,
					TenantId:        "<default>",
					EvaluatedInputs: []*pb.EvaluatedDecisionInput{{InputId: "in_age", InputName: "Age", InputValue: "42"}},
					MatchedRules: []*pb.MatchedDecisionRule{{RuleId: "r2", RuleIndex: 2,
						EvaluatedOutputs: []*pb.EvaluatedDecisionOutput{{OutputId: "out_risk", OutputName: "risk", OutputValue: `"low"`}}}}},
				{DecisionKey: 2251799813685300, DecisionId: "approval", DecisionType: "LITERAL_EXPRESSION", DecisionOutput: `{"limit":9007199254740993}`},
			}}
	})
	ev, err := c.EvaluateDecision(context.Background(), EvaluateDecisionRequest{DecisionID: "approval",
		Variables: json.RawMessage(`{"age":42,"id":9007199254740993}`), TenantID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	wantRequest(t, gw, "EvaluateDecision", &pb.EvaluateDecisionRequest{DecisionId: "approval", Variables: `{"age":42,"id":9007199254740993}`, TenantId: "t1"})
	if ev.DecisionKey != 2251799813685300 || ev.DecisionID != "approval" || ev.DecisionName != "Approval" || ev.DecisionVersion != 3 ||
		ev.DecisionRequirementsID != "drg" || ev.DecisionRequirementsKey != 2251799813685299 || ev.TenantID != "<default>" ||
		ev.DecisionInstanceKey != 77 || ev.DecisionEvaluationKey != 78 || ev.FailedDecisionID != "" {
		t.Fatalf("evaluation %+v", ev)
	}
	if string(ev.DecisionOutput) != `{"limit":9007199254740993}` {
		t.Fatalf("output %s", ev.DecisionOutput)
	}
	var out map[string]any
	if err := ev.DecodeOutput(&out); err != nil || out["limit"] != json.Number("9007199254740993") {
		t.Fatalf("DecodeOutput: %v %#v", err, out)
	}
	if len(ev.EvaluatedDecisions) != 2 || ev.EvaluatedDecisions[1].DecisionType != "LITERAL_EXPRESSION" {
		t.Fatalf("evaluated decisions %+v", ev.EvaluatedDecisions)
	}
	risk := ev.EvaluatedDecisions[0]
	if risk.DecisionKey != 11 || risk.DecisionID != "risk" || risk.DecisionName != "Risk" || risk.DecisionVersion != 1 ||
		risk.DecisionType != "DECISION_TABLE" || string(risk.DecisionOutput) != `"low"` || risk.TenantID != "<default>" {
		t.Fatalf("risk %+v", risk)
	}
	if len(risk.EvaluatedInputs) != 1 {
		t.Fatalf("inputs %+v", risk.EvaluatedInputs)
	}
	if in := risk.EvaluatedInputs[0]; in.InputID != "in_age" || in.InputName != "Age" || string(in.InputValue) != "42" {
		t.Fatalf("input %+v", in)
	}
	if len(risk.MatchedRules) != 1 || risk.MatchedRules[0].RuleID != "r2" || risk.MatchedRules[0].RuleIndex != 2 ||
		len(risk.MatchedRules[0].EvaluatedOutputs) != 1 {
		t.Fatalf("rules %+v", risk.MatchedRules)
	}
	if o := risk.MatchedRules[0].EvaluatedOutputs[0]; o.OutputID != "out_risk" || o.OutputName != "risk" || string(o.OutputValue) != `"low"` {
		t.Fatalf("output %+v", o)
	}
}

func TestFakeEvaluateDecisionByKeyAndVariables(t *testing.T) {
	c, gw := commandClient(t)
	gw.Set(func(s *fakegw.Server) { s.Commands.Decision = &pb.EvaluateDecisionResponse{DecisionKey: 5} })
	// by key: the key wins over the id; a map keeps json.Number exact; nil variables are {}
	vars := map[string]any{"n": json.Number("9223372036854775807")}
	if _, err := c.EvaluateDecision(context.Background(), EvaluateDecisionRequest{DecisionKey: 5, DecisionID: "ignored", Variables: vars}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EvaluateDecision(context.Background(), EvaluateDecisionRequest{DecisionID: "d"}); err != nil {
		t.Fatal(err)
	}
	reqs := gw.Requests("EvaluateDecision")
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if want := (&pb.EvaluateDecisionRequest{DecisionKey: 5, Variables: `{"n":9223372036854775807}`}); !proto.Equal(reqs[0], want) {
		t.Fatalf("by key: %v", reqs[0])
	}
	if want := (&pb.EvaluateDecisionRequest{DecisionId: "d", Variables: `{}`}); !proto.Equal(reqs[1], want) {
		t.Fatalf("no variables: %v", reqs[1])
	}
	// variables that are no JSON object are refused before anything is sent
	if _, err := c.EvaluateDecision(context.Background(), EvaluateDecisionRequest{DecisionID: "d", Variables: "[1]"}); !errors.Is(err, ErrInvalidVariables) {
		t.Fatalf("array variables: %v", err)
	}
	if n := len(gw.Requests("EvaluateDecision")); n != 2 {
		t.Fatalf("invalid variables were sent (%d requests)", n)
	}
}

func TestFakeEvaluateDecisionUnknownIsNotFoundError(t *testing.T) {
	c, gw := commandClient(t)
	_, err := c.EvaluateDecision(context.Background(), EvaluateDecisionRequest{DecisionID: "nope"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Op != "EvaluateDecision" {
		t.Fatalf("got %T %v, want *NotFoundError", err, err)
	}
	if n := len(gw.Requests("EvaluateDecision")); n != 1 {
		t.Fatalf("NOT_FOUND was resent: %d attempts", n)
	}
}

func TestFakeModifyProcessInstanceRequest(t *testing.T) {
	c, gw := commandClient(t)
	err := c.ModifyProcessInstance(context.Background(), ModifyInstance{ProcessInstanceKey: 42,
		Activate: []ActivateElement{
			{ElementID: "b", AncestorElementInstanceKey: 43, Variables: []ScopedVariables{
				{Variables: map[string]any{"x": 1}},
				{ScopeID: "sub", Variables: json.RawMessage(`{"big":9007199254740993}`)},
				{ScopeID: "empty"},
			}},
			{ElementID: "c"},
		},
		Terminate: []int64{44, 45}})
	if err != nil {
		t.Fatal(err)
	}
	type (
		ai = pb.ModifyProcessInstanceRequest_ActivateInstruction
		vi = pb.ModifyProcessInstanceRequest_VariableInstruction
		ti = pb.ModifyProcessInstanceRequest_TerminateInstruction
	)
	wantRequest(t, gw, "ModifyProcessInstance", &pb.ModifyProcessInstanceRequest{ProcessInstanceKey: 42,
		ActivateInstructions: []*ai{
			{ElementId: "b", AncestorElementInstanceKey: 43, VariableInstructions: []*vi{
				{Variables: `{"x":1}`}, {Variables: `{"big":9007199254740993}`, ScopeId: "sub"}, {Variables: `{}`, ScopeId: "empty"}}},
			{ElementId: "c"},
		},
		TerminateInstructions: []*ti{{ElementInstanceKey: 44}, {ElementInstanceKey: 45}}})

	err = c.ModifyProcessInstance(context.Background(), ModifyInstance{ProcessInstanceKey: 42,
		Activate: []ActivateElement{{ElementID: "b", Variables: []ScopedVariables{{Variables: `"text"`}}}}})
	if !errors.Is(err, ErrInvalidVariables) {
		t.Fatalf("non-object variables: %v", err)
	}
}

func TestFakeMigrateProcessInstanceRequest(t *testing.T) {
	c, gw := commandClient(t)
	err := c.MigrateProcessInstance(context.Background(), MigrateInstance{ProcessInstanceKey: 42, TargetProcessDefinitionKey: 7,
		Mappings: []MappingInstruction{{SourceElementID: "a", TargetElementID: "a2"}, {SourceElementID: "b", TargetElementID: "b2"}}})
	if err != nil {
		t.Fatal(err)
	}
	type mi = pb.MigrateProcessInstanceRequest_MappingInstruction
	wantRequest(t, gw, "MigrateProcessInstance", &pb.MigrateProcessInstanceRequest{ProcessInstanceKey: 42,
		MigrationPlan: &pb.MigrateProcessInstanceRequest_MigrationPlan{TargetProcessDefinitionKey: 7,
			MappingInstructions: []*mi{{SourceElementId: "a", TargetElementId: "a2"}, {SourceElementId: "b", TargetElementId: "b2"}}}})
}

func TestFakeDeleteResourceRequest(t *testing.T) {
	c, gw := commandClient(t)
	if err := c.DeleteResource(context.Background(), 2251799813685249); err != nil {
		t.Fatal(err)
	}
	wantRequest(t, gw, "DeleteResource", &pb.DeleteResourceRequest{ResourceKey: 2251799813685249})
}

func TestFakeBroadcastSignalRequestAndKey(t *testing.T) {
	c, gw := commandClient(t)
	key, err := c.BroadcastSignal(context.Background(), Signal{Name: "go", Variables: map[string]any{"n": json.Number("9007199254740993")}, TenantID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	wantRequest(t, gw, "BroadcastSignal", &pb.BroadcastSignalRequest{SignalName: "go", Variables: `{"n":9007199254740993}`, TenantId: "t1"})
	if key != 2251799813685249 { // the fake's first key
		t.Fatalf("key %d", key)
	}
	if _, err := c.BroadcastSignal(context.Background(), Signal{Name: "go", Variables: []int{1}}); !errors.Is(err, ErrInvalidVariables) {
		t.Fatalf("non-object variables: %v", err)
	}
}

// commandCalls calls each of the five commands once.
var commandCalls = map[string]func(context.Context, *Client) error{
	"EvaluateDecision": func(ctx context.Context, c *Client) error {
		_, err := c.EvaluateDecision(ctx, EvaluateDecisionRequest{DecisionID: "d"})
		return err
	},
	"ModifyProcessInstance": func(ctx context.Context, c *Client) error {
		return c.ModifyProcessInstance(ctx, ModifyInstance{ProcessInstanceKey: 1, Activate: []ActivateElement{{ElementID: "a"}}})
	},
	"MigrateProcessInstance": func(ctx context.Context, c *Client) error {
		return c.MigrateProcessInstance(ctx, MigrateInstance{ProcessInstanceKey: 1, TargetProcessDefinitionKey: 2})
	},
	"DeleteResource": func(ctx context.Context, c *Client) error { return c.DeleteResource(ctx, 1) },
	"BroadcastSignal": func(ctx context.Context, c *Client) error {
		_, err := c.BroadcastSignal(ctx, Signal{Name: "s"})
		return err
	},
}

// typedErrorName is the type name of the typed error err is (or "").
func typedErrorName(err error) string {
	for _, e := range []any{new(*BackpressureError), new(*UnavailableError), new(*NotFoundError), new(*InvalidArgumentError),
		new(*FailedPreconditionError), new(*AlreadyExistsError), new(*DeadlineExceededError), new(*RequestCancelledError),
		new(*UnauthenticatedError), new(*PermissionDeniedError), new(*InternalError), new(*UnimplementedError)} {
		if errors.As(err, e) {
			return fmt.Sprintf("%T", e)[1:] // "**jobwire.X" -> "*jobwire.X"
		}
	}
	return ""
}

// Two refused attempts with a status: a command resent after it succeeds on
// the third attempt; any other status is the typed error of the first attempt.
func TestFakeResendAfterListedStatusesOnly(t *testing.T) {
	statuses := map[codes.Code]string{
		codes.Unavailable: "*jobwire.UnavailableError", codes.ResourceExhausted: "*jobwire.BackpressureError",
		codes.DeadlineExceeded: "*jobwire.DeadlineExceededError", codes.Aborted: "*jobwire.InternalError",
		codes.Canceled: "*jobwire.RequestCancelledError", codes.Internal: "*jobwire.InternalError",
		codes.NotFound: "*jobwire.NotFoundError", codes.FailedPrecondition: "*jobwire.FailedPreconditionError",
		codes.InvalidArgument: "*jobwire.InvalidArgumentError", codes.Unimplemented: "*jobwire.UnimplementedError",
	}
	resentAfter := map[string]map[codes.Code]bool{
		"EvaluateDecision":       {codes.Unavailable: true, codes.ResourceExhausted: true},
		"ModifyProcessInstance":  {codes.ResourceExhausted: true},
		"MigrateProcessInstance": {codes.ResourceExhausted: true},
		"DeleteResource":         {codes.ResourceExhausted: true},
		"BroadcastSignal":        {codes.ResourceExhausted: true},
	}
	for method, call := range commandCalls {
		for code, typ := range statuses {
			t.Run(method+"/"+code.String(), func(t *testing.T) {
				c, gw := commandClient(t)
				gw.Set(func(s *fakegw.Server) {
					s.Commands.Decision = &pb.EvaluateDecisionResponse{DecisionKey: 9}
					s.Commands.CommandErr = func(_ string, attempt int) error {
						if attempt <= 2 {
							return status.Error(code, "injected")
						}
						return nil
					}
				})
				err := call(context.Background(), c)
				attempts := len(gw.Requests(method))
				if resentAfter[method][code] {
					if err != nil || attempts != 3 {
						t.Fatalf("want success on the third attempt, got %v after %d attempts", err, attempts)
					}
					return
				}
				if attempts != 1 {
					t.Fatalf("resent after %s: %d attempts", code, attempts)
				}
				if got := typedErrorName(err); got != typ || Code(err) != code {
					t.Fatalf("got %s (%v), want %s", got, err, typ)
				}
			})
		}
	}
}

// An UNAVAILABLE answered after the command was applied: a state change is
// applied once and returns the UnavailableError; an evaluation is resent.
func TestFakeResendLostAnswerAppliedOnce(t *testing.T) {
	for method, call := range commandCalls {
		c, gw := commandClient(t)
		gw.Set(func(s *fakegw.Server) {
			s.Commands.Decision = &pb.EvaluateDecisionResponse{DecisionKey: 9}
			s.Commands.CommandLost = func(_ string, attempt int) error {
				if attempt == 1 {
					return status.Error(codes.Unavailable, "connection lost after apply")
				}
				return nil
			}
		})
		err := call(context.Background(), c)
		if method == "EvaluateDecision" {
			if err != nil || gw.Applied(method) != 2 {
				t.Fatalf("%s: %v, applied %d times, want resent", method, err, gw.Applied(method))
			}
			continue
		}
		var ue *UnavailableError
		if !errors.As(err, &ue) || gw.Applied(method) != 1 || len(gw.Requests(method)) != 1 {
			t.Fatalf("%s: %v, applied %d times, want UnavailableError and applied once", method, err, gw.Applied(method))
		}
	}
}

// Backpressure on every attempt: 5 attempts with the shared backoff between
// them (50, 80, 128, 204 ms ±10 %), then the BackpressureError.
func TestFakeResendAtMostFiveAttempts(t *testing.T) {
	for method, call := range commandCalls {
		c, gw := commandClient(t)
		gw.Set(func(s *fakegw.Server) {
			s.Commands.CommandErr = func(string, int) error { return status.Error(codes.ResourceExhausted, "backpressure") }
		})
		start := time.Now()
		err := call(context.Background(), c)
		took := time.Since(start)
		var bp *BackpressureError
		if !errors.As(err, &bp) {
			t.Fatalf("%s: %v, want *BackpressureError", method, err)
		}
		if n := len(gw.Requests(method)); n != 5 {
			t.Fatalf("%s: %d attempts, want 5", method, n)
		}
		if min := 9 * (50 + 80 + 128 + 204) * time.Millisecond / 10; took < min {
			t.Fatalf("%s: 5 attempts took %v, less than the backoff's %v", method, took, min)
		}
	}
}

// Resends never go past the call's deadline: with 400 ms, the fourth attempt
// comes after 50 + 80 + 128 ms of backoff and is the last, because the next
// wait (204 ms) would end past the deadline; the call returns then, with the
// last attempt's error, instead of waiting into the deadline (which would
// return at 400 ms) or sending an attempt that could only fail with
// DEADLINE_EXCEEDED.
func TestFakeResendStopsAtDeadline(t *testing.T) {
	for method, call := range commandCalls {
		c, gw := commandClient(t)
		if _, err := c.Topology(context.Background()); err != nil { // connect first: time only the attempts
			t.Fatal(err)
		}
		gw.Set(func(s *fakegw.Server) {
			s.Commands.CommandErr = func(string, int) error { return status.Error(codes.ResourceExhausted, "backpressure") }
		})
		ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
		start := time.Now()
		err := call(ctx, c)
		took := time.Since(start)
		cancel()
		var bp *BackpressureError
		if !errors.As(err, &bp) {
			t.Fatalf("%s: %v, want the last attempt's *BackpressureError", method, err)
		}
		if n := len(gw.Requests(method)); n < 3 || n > 4 {
			t.Fatalf("%s: %d attempts within 400 ms, want 4 (3 on a slow machine)", method, n)
		}
		if took >= 350*time.Millisecond {
			t.Fatalf("%s: returned after %v: it waited for the deadline instead of returning once the next wait would pass it", method, took)
		}
	}
}
