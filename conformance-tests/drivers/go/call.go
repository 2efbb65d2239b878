package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
)

// The `call` command (DRIVER-CONTRACT.md, "Client commands"): one client
// command through the SDK's public client API, answered with `call_result`.

// callTimeout bounds one call (the SDK's resends stay within it).
const callTimeout = 30 * time.Second

// key is a record key: a decimal string on the wire (a JSON number is accepted too).
type key int64

func (k *key) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("key %s: want a decimal string", b)
		}
		*k = key(n)
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("key %q: %w", s, err)
	}
	*k = key(n)
	return nil
}

func keyString(k int64) string { return strconv.FormatInt(k, 10) }

// variables keeps a JSON object as sent (lossless); absent stays nil.
func variables(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

type callRequest struct {
	// evaluateDecision
	DecisionID  string          `json:"decisionId"`
	DecisionKey key             `json:"decisionKey"`
	Variables   json.RawMessage `json:"variables"`
	TenantID    string          `json:"tenantId"`
	// modifyProcessInstance, migrateProcessInstance
	ProcessInstanceKey key `json:"processInstanceKey"`
	Activate           []struct {
		ElementID                  string `json:"elementId"`
		AncestorElementInstanceKey key    `json:"ancestorElementInstanceKey"`
		Variables                  []struct {
			ScopeID   string          `json:"scopeId"`
			Variables json.RawMessage `json:"variables"`
		} `json:"variables"`
	} `json:"activate"`
	Terminate                  []key `json:"terminate"`
	TargetProcessDefinitionKey key   `json:"targetProcessDefinitionKey"`
	Mappings                   []struct {
		SourceElementID string `json:"sourceElementId"`
		TargetElementID string `json:"targetElementId"`
	} `json:"mappings"`
	// deleteResource
	ResourceKey key `json:"resourceKey"`
	// broadcastSignal
	SignalName string `json:"signalName"`
}

// call runs one command and emits its call_result.
func (d *driver) call(id, method string, raw json.RawMessage) {
	var r callRequest
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r); err != nil {
			d.out.emit("call_result", map[string]any{"id": id, "ok": false, "code": "", "errorType": "DriverError",
				"message": "bad request: " + err.Error()})
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	result, err := d.send(ctx, method, &r)
	if err != nil {
		d.out.emit("call_result", map[string]any{"id": id, "ok": false, "code": codeName(err), "errorType": errorType(err), "message": err.Error()})
		return
	}
	d.out.emit("call_result", map[string]any{"id": id, "ok": true, "result": result})
}

var errUnknownMethod = errors.New("unknown method")

func (d *driver) send(ctx context.Context, method string, r *callRequest) (map[string]any, error) {
	c := d.client
	switch method {
	case "evaluateDecision":
		ev, err := c.EvaluateDecision(ctx, jobwire.EvaluateDecisionRequest{DecisionID: r.DecisionID, DecisionKey: int64(r.DecisionKey),
			Variables: variables(r.Variables), TenantID: r.TenantID})
		if err != nil {
			return nil, err
		}
		ids := []string{}
		rules := []string{}
		for _, x := range ev.EvaluatedDecisions {
			ids = append(ids, x.DecisionID)
			if x.DecisionID == ev.DecisionID {
				rules = rules[:0]
				for _, m := range x.MatchedRules {
					rules = append(rules, m.RuleID)
				}
			}
		}
		return map[string]any{"decisionKey": keyString(ev.DecisionKey), "decisionId": ev.DecisionID, "decisionVersion": ev.DecisionVersion,
			"decisionOutput": string(ev.DecisionOutput), "evaluatedDecisionIds": ids, "matchedRuleIds": rules,
			"failedDecisionId": ev.FailedDecisionID, "failureMessage": ev.FailureMessage}, nil
	case "modifyProcessInstance":
		m := jobwire.ModifyInstance{ProcessInstanceKey: int64(r.ProcessInstanceKey)}
		for _, a := range r.Activate {
			ae := jobwire.ActivateElement{ElementID: a.ElementID, AncestorElementInstanceKey: int64(a.AncestorElementInstanceKey)}
			for _, v := range a.Variables {
				ae.Variables = append(ae.Variables, jobwire.ScopedVariables{ScopeID: v.ScopeID, Variables: variables(v.Variables)})
			}
			m.Activate = append(m.Activate, ae)
		}
		for _, k := range r.Terminate {
			m.Terminate = append(m.Terminate, int64(k))
		}
		return map[string]any{}, c.ModifyProcessInstance(ctx, m)
	case "migrateProcessInstance":
		m := jobwire.MigrateInstance{ProcessInstanceKey: int64(r.ProcessInstanceKey), TargetProcessDefinitionKey: int64(r.TargetProcessDefinitionKey)}
		for _, x := range r.Mappings {
			m.Mappings = append(m.Mappings, jobwire.MappingInstruction{SourceElementID: x.SourceElementID, TargetElementID: x.TargetElementID})
		}
		return map[string]any{}, c.MigrateProcessInstance(ctx, m)
	case "deleteResource":
		return map[string]any{}, c.DeleteResource(ctx, int64(r.ResourceKey))
	case "broadcastSignal":
		k, err := c.BroadcastSignal(ctx, jobwire.Signal{Name: r.SignalName, Variables: variables(r.Variables), TenantID: r.TenantID})
		if err != nil {
			return nil, err
		}
		return map[string]any{"key": keyString(k)}, nil
	}
	return nil, fmt.Errorf("%w %q", errUnknownMethod, method)
}

// errorType is the type name of the SDK's error (e.g. NotFoundError).
func errorType(err error) string {
	switch {
	case errors.Is(err, errUnknownMethod):
		return "DriverError"
	case errors.Is(err, jobwire.ErrInvalidVariables):
		return "ErrInvalidVariables"
	}
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
