package gateway

import (
	"context"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	decisionpb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// EvaluateDecision evaluates a deployed decision, by key or by id (latest
// version), on the next partition (round-robin, as Zeebe's gateway sends
// it to any partition: every partition has the deployed decisions). An
// evaluation failure is an OK answer with failedDecisionId and
// failureMessage; an unknown decision is NOT_FOUND.
func (g *Gateway) EvaluateDecision(ctx context.Context, r *decisionpb.EvaluateDecisionRequest) (*decisionpb.EvaluateDecisionResponse, error) {
	if err := checkTenant(r.TenantId); err != nil {
		return nil, err
	}
	if r.DecisionKey <= 0 && r.DecisionId == "" {
		return nil, status.Error(codes.InvalidArgument, "Expected either a decision id or a valid decision key, but none provided")
	}
	c := &partition.Command{Op: partition.OpEvaluate, Key: r.DecisionKey, DecisionID: r.DecisionId, Variables: r.Variables}
	if r.DecisionKey > 0 {
		c.DecisionID = ""
	}
	res, err := g.broker.Submit(ctx, g.nextPartition(), c)
	if err != nil {
		return nil, err
	}
	return res.(*decisionpb.EvaluateDecisionResponse), nil
}
