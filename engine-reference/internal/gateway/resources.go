package gateway

import (
	"context"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DeleteResource deletes a process definition, a decision requirements
// graph (with its decisions) or a form by key, as Zeebe 8.8 does: a process
// definition with a running instance on any partition is refused
// (FAILED_PRECONDITION, Zeebe's INVALID_STATE rejection) before anything
// changes; partition 1 deletes it (NOT_FOUND for an unknown key) and the
// deletion is then distributed to every other partition, like a deployment.
func (g *Gateway) DeleteResource(ctx context.Context, r *pb.DeleteResourceRequest) (*pb.DeleteResourceResponse, error) {
	if r.ResourceKey <= 0 {
		return nil, partition.Reject(partition.OpDeleteResource, partition.RejNotFound, "Expected to delete resource but no resource found with key `%d`", r.ResourceKey)
	}
	n := g.broker.PartitionCount()
	for pid := int32(2); pid <= n; pid++ {
		_, err := g.broker.Submit(ctx, pid, &partition.Command{Op: partition.OpDeleteResource, Key: r.ResourceKey,
			Ops: &partition.OpsArgs{CheckOnly: true}})
		if status.Code(err) == codes.FailedPrecondition {
			return nil, err
		}
	}
	res, err := g.broker.Submit(ctx, 1, &partition.Command{Op: partition.OpDeleteResource, Key: r.ResourceKey})
	if err != nil {
		return nil, err
	}
	for pid := int32(2); pid <= n; pid++ {
		cmd := func() *partition.Command {
			return &partition.Command{Op: partition.OpDeleteResource, Key: r.ResourceKey, Ops: &partition.OpsArgs{Distributed: true}}
		}
		if g.broker.Healthy(pid) {
			if _, err := g.broker.Submit(ctx, pid, cmd()); err == nil {
				continue
			}
		}
		go g.retryDistribution(pid, cmd)
	}
	return res.(*pb.DeleteResourceResponse), nil
}

// retryDistribution sends a distributed command to a partition that could
// not take it at once, until its broker is back (for as long as this
// gateway runs), as deployments are distributed.
func (g *Gateway) retryDistribution(pid int32, cmd func() *partition.Command) {
	for i := 0; i < 3000; i++ {
		select {
		case <-g.closing:
			return
		case <-time.After(200 * time.Millisecond):
		}
		if !g.broker.Healthy(pid) {
			continue
		}
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := g.broker.Submit(c, pid, cmd())
		cancel()
		if err == nil {
			return
		}
	}
}

// ModifyProcessInstance activates and terminates elements of a running
// instance (partition of the instance's key); see partition/modify.go.
func (g *Gateway) ModifyProcessInstance(ctx context.Context, r *pb.ModifyProcessInstanceRequest) (*pb.ModifyProcessInstanceResponse, error) {
	args := &partition.OpsArgs{}
	for _, a := range r.ActivateInstructions {
		act := partition.ActivateArg{ElementID: a.ElementId, Ancestor: a.AncestorElementInstanceKey}
		for _, v := range a.VariableInstructions {
			act.Variables = append(act.Variables, partition.VariableArg{ScopeID: v.ScopeId, Variables: v.Variables})
		}
		args.Activate = append(args.Activate, act)
	}
	for _, t := range r.TerminateInstructions {
		args.Terminate = append(args.Terminate, t.ElementInstanceKey)
	}
	res, err := g.submitKey(ctx, partition.OpModify, r.ProcessInstanceKey, "modify process instance", &partition.Command{Ops: args})
	if err != nil {
		return nil, err
	}
	return res.(*pb.ModifyProcessInstanceResponse), nil
}

// MigrateProcessInstance moves a running instance to another process
// definition (partition of the instance's key); see partition/migrate.go.
func (g *Gateway) MigrateProcessInstance(ctx context.Context, r *pb.MigrateProcessInstanceRequest) (*pb.MigrateProcessInstanceResponse, error) {
	args := &partition.OpsArgs{}
	if plan := r.MigrationPlan; plan != nil {
		args.TargetDefKey = plan.TargetProcessDefinitionKey
		for _, m := range plan.MappingInstructions {
			args.Mappings = append(args.Mappings, partition.MappingArg{Source: m.SourceElementId, Target: m.TargetElementId})
		}
	}
	res, err := g.submitKey(ctx, partition.OpMigrate, r.ProcessInstanceKey, "migrate process instance", &partition.Command{Ops: args})
	if err != nil {
		return nil, err
	}
	return res.(*pb.MigrateProcessInstanceResponse), nil
}
