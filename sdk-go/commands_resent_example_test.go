package jobwire_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	jobwire "github.com/jobwire/jobwire/sdk-go"
)

// Evaluating a deployed decision (compiled, not run).
func ExampleClient_EvaluateDecision() {
	var client *jobwire.Client // from jobwire.NewClient
	ev, err := client.EvaluateDecision(context.Background(), jobwire.EvaluateDecisionRequest{
		DecisionID: "discount", Variables: map[string]any{"total": 120, "tier": "gold"}})
	if err != nil {
		log.Fatal(err) // *jobwire.NotFoundError for an unknown decision
	}
	if ev.FailedDecisionID != "" {
		log.Fatalf("decision %s failed: %s", ev.FailedDecisionID, ev.FailureMessage)
	}
	var rate float64
	if err := ev.DecodeOutput(&rate); err != nil {
		log.Fatal(err)
	}
	fmt.Println("discount rate", rate)
}

// Moving a stuck instance on: activate a task with a variable, terminate the
// element instance it waits in (compiled, not run).
func ExampleClient_ModifyProcessInstance() {
	var client *jobwire.Client // from jobwire.NewClient
	var processInstanceKey, waitingElementInstanceKey int64
	err := client.ModifyProcessInstance(context.Background(), jobwire.ModifyInstance{
		ProcessInstanceKey: processInstanceKey,
		Activate: []jobwire.ActivateElement{{ElementID: "manual-review",
			Variables: []jobwire.ScopedVariables{{Variables: map[string]any{"reason": "payment provider down"}}}}},
		Terminate: []int64{waitingElementInstanceKey},
	})
	var unavailable *jobwire.UnavailableError
	if errors.As(err, &unavailable) {
		// not resent: the modification may have been applied; look at the instance before trying again
		log.Print(err)
	}
}

// Starting every process with a matching signal start event (compiled, not run).
func ExampleClient_BroadcastSignal() {
	var client *jobwire.Client // from jobwire.NewClient
	key, err := client.BroadcastSignal(context.Background(), jobwire.Signal{Name: "stock-updated",
		Variables: map[string]any{"sku": "A-17"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("signal", key)
}
