package jobwire

import (
	"context"
	"encoding/json"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
	"github.com/jobwire/jobwire/sdk-go/internal/worker"
)

// The client commands EvaluateDecision, ModifyProcessInstance,
// MigrateProcessInstance, DeleteResource and BroadcastSignal. Unlike the
// other client commands they are resent after a status that proves the
// command was not applied (docs/worker-semantics.md, "Client commands: which
// are resent"): resendEvaluation and resendStateChange are that rule.

// maxCommandAttempts bounds the attempts of one resent command.
const maxCommandAttempts = 5

// resendEvaluation decides whether EvaluateDecision is sent again after a
// status: an evaluation changes no state, so it is resent after UNAVAILABLE
// and RESOURCE_EXHAUSTED (backpressure: refused before it was written).
func resendEvaluation(code codes.Code) bool {
	return code == codes.Unavailable || code == codes.ResourceExhausted
}

// resendStateChange decides whether a command that changes state
// (ModifyProcessInstance, MigrateProcessInstance, DeleteResource,
// BroadcastSignal) is sent again after a status: only after
// RESOURCE_EXHAUSTED, the one status that proves it was not applied. After
// UNAVAILABLE, DEADLINE_EXCEEDED or ABORTED the first attempt may have been
// applied; a resend would activate elements twice, start a second instance
// or hide the success behind NOT_FOUND.
func resendStateChange(code codes.Code) bool {
	return code == codes.ResourceExhausted
}

// send calls call until it succeeds or resend refuses its status, at most
// maxCommandAttempts times, waiting the shared backoff between attempts but
// never past ctx's deadline (bounds: the client's WithBackoff). A failure is the typed error of the last
// attempt's status.
func send[R any](ctx context.Context, op string, resend func(codes.Code) bool, call func(context.Context) (R, error), bounds worker.BackoffConfig) (R, error) {
	b := worker.NewBackoffWith(bounds)
	for attempt := 1; ; attempt++ {
		r, err := call(ctx)
		if err == nil {
			return r, nil
		}
		if attempt >= maxCommandAttempts || !resend(status.Code(err)) {
			return r, wrapError(op, err)
		}
		wait := b.Next()
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			return r, wrapError(op, err) // the next attempt would start past the deadline
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return r, wrapError(op, err)
		}
	}
}

// EvaluateDecisionRequest names a deployed decision to evaluate: by
// DecisionKey (one version), or by DecisionID (its latest version).
type EvaluateDecisionRequest struct {
	DecisionID  string
	DecisionKey int64 // wins over DecisionID when both are set
	Variables   any   // map, struct, json.RawMessage or nil: the evaluation's input
	TenantID    string
}

// DecisionEvaluation is the result of an evaluation. A decision that fails
// to evaluate is still a result: FailedDecisionID and FailureMessage say which
// and why.
type DecisionEvaluation struct {
	DecisionKey             int64
	DecisionID              string
	DecisionName            string
	DecisionVersion         int32
	DecisionRequirementsID  string
	DecisionRequirementsKey int64
	DecisionOutput          json.RawMessage // the output as the gateway sent it (nil if none)
	// EvaluatedDecisions are the decision and every decision it required, in
	// evaluation order (the decision itself is last).
	EvaluatedDecisions    []EvaluatedDecision
	FailedDecisionID      string
	FailureMessage        string
	TenantID              string
	DecisionInstanceKey   int64
	DecisionEvaluationKey int64
}

// DecodeOutput unmarshals the decision's output into v (numbers as
// json.Number when v is a map or any, so integers beyond 2^53 stay exact).
func (d *DecisionEvaluation) DecodeOutput(v any) error { return decodeJSON(d.DecisionOutput, v) }

// EvaluatedDecision is one decision evaluated on the way.
type EvaluatedDecision struct {
	DecisionKey     int64
	DecisionID      string
	DecisionName    string
	DecisionVersion int32
	DecisionType    string // DECISION_TABLE or LITERAL_EXPRESSION
	DecisionOutput  json.RawMessage
	MatchedRules    []MatchedRule    // decision tables: the rules that matched
	EvaluatedInputs []EvaluatedInput // decision tables: the inputs' values
	TenantID        string
}

// MatchedRule is a rule of a decision table that matched.
type MatchedRule struct {
	RuleID           string
	RuleIndex        int32 // 1-based position in the table
	EvaluatedOutputs []EvaluatedOutput
}

// EvaluatedInput is an input of a decision table and its value.
type EvaluatedInput struct {
	InputID    string
	InputName  string
	InputValue json.RawMessage
}

// EvaluatedOutput is an output of a matched rule and its value.
type EvaluatedOutput struct {
	OutputID    string
	OutputName  string
	OutputValue json.RawMessage
}

// EvaluateDecision evaluates a deployed decision with variables. It is resent
// (shared backoff, at most 5 attempts, within ctx's deadline) after
// UNAVAILABLE or RESOURCE_EXHAUSTED; an unknown decision is a NotFoundError.
//
//	ev, err := client.EvaluateDecision(ctx, jobwire.EvaluateDecisionRequest{
//		DecisionID: "discount", Variables: map[string]any{"total": 120}})
//	var out struct{ Rate float64 }
//	err = ev.DecodeOutput(&out)
func (c *Client) EvaluateDecision(ctx context.Context, r EvaluateDecisionRequest) (*DecisionEvaluation, error) {
	vars, err := marshalVariables(r.Variables)
	if err != nil {
		return nil, err
	}
	if vars == "" {
		vars = "{}"
	}
	id := r.DecisionID
	if r.DecisionKey != 0 {
		id = ""
	}
	req := &pb.EvaluateDecisionRequest{DecisionKey: r.DecisionKey, DecisionId: id, Variables: vars, TenantId: r.TenantID}
	resp, err := send(ctx, "EvaluateDecision", resendEvaluation, func(ctx context.Context) (*pb.EvaluateDecisionResponse, error) {
		return c.gw.EvaluateDecision(ctx, req)
	}, c.cfg.backoff)
	if err != nil {
		return nil, err
	}
	ev := &DecisionEvaluation{DecisionKey: resp.GetDecisionKey(), DecisionID: resp.GetDecisionId(), DecisionName: resp.GetDecisionName(),
		DecisionVersion: resp.GetDecisionVersion(), DecisionRequirementsID: resp.GetDecisionRequirementsId(),
		DecisionRequirementsKey: resp.GetDecisionRequirementsKey(), DecisionOutput: rawJSON(resp.GetDecisionOutput()),
		FailedDecisionID: resp.GetFailedDecisionId(), FailureMessage: resp.GetFailureMessage(), TenantID: resp.GetTenantId(),
		DecisionInstanceKey: resp.GetDecisionInstanceKey(), DecisionEvaluationKey: resp.GetDecisionEvaluationKey()}
	for _, d := range resp.GetEvaluatedDecisions() {
		ed := EvaluatedDecision{DecisionKey: d.GetDecisionKey(), DecisionID: d.GetDecisionId(), DecisionName: d.GetDecisionName(),
			DecisionVersion: d.GetDecisionVersion(), DecisionType: d.GetDecisionType(), DecisionOutput: rawJSON(d.GetDecisionOutput()),
			TenantID: d.GetTenantId()}
		for _, m := range d.GetMatchedRules() {
			mr := MatchedRule{RuleID: m.GetRuleId(), RuleIndex: m.GetRuleIndex()}
			for _, o := range m.GetEvaluatedOutputs() {
				mr.EvaluatedOutputs = append(mr.EvaluatedOutputs, EvaluatedOutput{o.GetOutputId(), o.GetOutputName(), rawJSON(o.GetOutputValue())})
			}
			ed.MatchedRules = append(ed.MatchedRules, mr)
		}
		for _, in := range d.GetEvaluatedInputs() {
			ed.EvaluatedInputs = append(ed.EvaluatedInputs, EvaluatedInput{in.GetInputId(), in.GetInputName(), rawJSON(in.GetInputValue())})
		}
		ev.EvaluatedDecisions = append(ev.EvaluatedDecisions, ed)
	}
	return ev, nil
}

// rawJSON keeps a JSON document as the gateway sent it ("" = nil).
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// ModifyInstance describes a modification of a running process instance:
// elements to activate and element instances to terminate, applied in one step.
type ModifyInstance struct {
	ProcessInstanceKey int64
	Activate           []ActivateElement
	Terminate          []int64 // element instance keys
}

// ActivateElement is an element to activate, with variables for the scopes
// created on the way.
type ActivateElement struct {
	ElementID string
	// AncestorElementInstanceKey is the flow scope instance to activate the
	// element in; 0 = the one instance of its flow scope.
	AncestorElementInstanceKey int64
	Variables                  []ScopedVariables
}

// ScopedVariables are variables an activation sets as local variables of one
// scope: an element instance on the activated element's path, or the process
// instance.
type ScopedVariables struct {
	ScopeID   string // the element whose instance gets them as local variables; "" = the process instance
	Variables any    // map, struct, json.RawMessage or nil
}

// ModifyProcessInstance activates and terminates elements of a running
// process instance. It is resent only after RESOURCE_EXHAUSTED (see
// EvaluateDecision for the backoff): after UNAVAILABLE it may have been
// applied, so the error is returned at once and the application decides.
//
//	err := client.ModifyProcessInstance(ctx, jobwire.ModifyInstance{
//		ProcessInstanceKey: pi.ProcessInstanceKey,
//		Activate: []jobwire.ActivateElement{{ElementID: "review",
//			Variables: []jobwire.ScopedVariables{{Variables: map[string]any{"reason": "manual"}}}}},
//		Terminate: []int64{taskInstanceKey}})
func (c *Client) ModifyProcessInstance(ctx context.Context, m ModifyInstance) error {
	req := &pb.ModifyProcessInstanceRequest{ProcessInstanceKey: m.ProcessInstanceKey}
	for _, a := range m.Activate {
		ai := &pb.ModifyProcessInstanceRequest_ActivateInstruction{ElementId: a.ElementID, AncestorElementInstanceKey: a.AncestorElementInstanceKey}
		for _, sv := range a.Variables {
			vars, err := marshalVariables(sv.Variables)
			if err != nil {
				return err
			}
			if vars == "" {
				vars = "{}"
			}
			ai.VariableInstructions = append(ai.VariableInstructions, &pb.ModifyProcessInstanceRequest_VariableInstruction{Variables: vars, ScopeId: sv.ScopeID})
		}
		req.ActivateInstructions = append(req.ActivateInstructions, ai)
	}
	for _, k := range m.Terminate {
		req.TerminateInstructions = append(req.TerminateInstructions, &pb.ModifyProcessInstanceRequest_TerminateInstruction{ElementInstanceKey: k})
	}
	_, err := send(ctx, "ModifyProcessInstance", resendStateChange, func(ctx context.Context) (*pb.ModifyProcessInstanceResponse, error) {
		return c.gw.ModifyProcessInstance(ctx, req)
	}, c.cfg.backoff)
	return err
}

// MigrateInstance describes the migration of a running process instance to
// another process definition, element by element.
type MigrateInstance struct {
	ProcessInstanceKey         int64
	TargetProcessDefinitionKey int64
	Mappings                   []MappingInstruction
}

// MappingInstruction maps an element of the instance's definition to an
// element of the target definition.
type MappingInstruction struct {
	SourceElementID string
	TargetElementID string
}

// MigrateProcessInstance moves a running process instance to another process
// definition. It is resent only after RESOURCE_EXHAUSTED: after UNAVAILABLE
// the first attempt may have been applied (a resend would be refused and hide
// the success), so the error is returned at once.
//
//	err := client.MigrateProcessInstance(ctx, jobwire.MigrateInstance{
//		ProcessInstanceKey: pi.ProcessInstanceKey, TargetProcessDefinitionKey: v2.ProcessDefinitionKey,
//		Mappings: []jobwire.MappingInstruction{{SourceElementID: "check", TargetElementID: "check-v2"}}})
func (c *Client) MigrateProcessInstance(ctx context.Context, m MigrateInstance) error {
	plan := &pb.MigrateProcessInstanceRequest_MigrationPlan{TargetProcessDefinitionKey: m.TargetProcessDefinitionKey}
	for _, mi := range m.Mappings {
		plan.MappingInstructions = append(plan.MappingInstructions, &pb.MigrateProcessInstanceRequest_MappingInstruction{SourceElementId: mi.SourceElementID, TargetElementId: mi.TargetElementID})
	}
	req := &pb.MigrateProcessInstanceRequest{ProcessInstanceKey: m.ProcessInstanceKey, MigrationPlan: plan}
	_, err := send(ctx, "MigrateProcessInstance", resendStateChange, func(ctx context.Context) (*pb.MigrateProcessInstanceResponse, error) {
		return c.gw.MigrateProcessInstance(ctx, req)
	}, c.cfg.backoff)
	return err
}

// DeleteResource deletes a deployed process definition, decision
// requirements graph or form by key. It is resent only after
// RESOURCE_EXHAUSTED; an unknown key is a NotFoundError, a process definition
// that still has running instances a FailedPreconditionError.
//
//	err := client.DeleteResource(ctx, deployment.Processes[0].ProcessDefinitionKey)
func (c *Client) DeleteResource(ctx context.Context, resourceKey int64) error {
	req := &pb.DeleteResourceRequest{ResourceKey: resourceKey}
	_, err := send(ctx, "DeleteResource", resendStateChange, func(ctx context.Context) (*pb.DeleteResourceResponse, error) {
		return c.gw.DeleteResource(ctx, req)
	}, c.cfg.backoff)
	return err
}

// Signal is a signal to broadcast.
type Signal struct {
	Name      string
	Variables any // map, struct, json.RawMessage or nil: what the triggered events receive
	TenantID  string
}

// BroadcastSignal triggers every signal start event and every waiting signal
// catch event named s.Name and returns the signal's key. It is resent only
// after RESOURCE_EXHAUSTED: after UNAVAILABLE the signal may have been
// broadcast (a resend would start second instances), so the error is
// returned at once.
//
//	key, err := client.BroadcastSignal(ctx, jobwire.Signal{Name: "stock-updated",
//		Variables: map[string]any{"sku": "A-17"}})
func (c *Client) BroadcastSignal(ctx context.Context, s Signal) (int64, error) {
	vars, err := marshalVariables(s.Variables)
	if err != nil {
		return 0, err
	}
	req := &pb.BroadcastSignalRequest{SignalName: s.Name, Variables: vars, TenantId: s.TenantID}
	resp, err := send(ctx, "BroadcastSignal", resendStateChange, func(ctx context.Context) (*pb.BroadcastSignalResponse, error) {
		return c.gw.BroadcastSignal(ctx, req)
	}, c.cfg.backoff)
	if err != nil {
		return 0, err
	}
	return resp.GetKey(), nil
}
