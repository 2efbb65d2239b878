package main

import (
	"context"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// `dev --no-admin` serves the gateway but refuses every admin call, as a
// Zeebe gateway (which has no admin API) does; without the flag the same
// calls are answered.
func TestDevNoAdminRefusesAdminCalls(t *testing.T) {
	for _, off := range []bool{true, false} {
		args := []string{"--port", "0", "--no-ui"}
		if off {
			args = []string{"--port", "0", "--no-admin"}
		}
		_, _, m := run(t, args...)
		conn, err := grpc.NewClient("127.0.0.1:"+m[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if _, err := pb.NewGatewayClient(conn).Topology(ctx, &pb.TopologyRequest{}); err != nil {
			t.Fatalf("no-admin=%v: Topology: %v", off, err)
		}
		admin := apb.NewAdminServiceClient(conn)
		_, err1 := admin.ListJobs(ctx, &apb.ListJobsRequest{Type: "any"})
		_, err2 := admin.InjectFault(ctx, &apb.InjectFaultRequest{})
		_, err3 := admin.ListProcessInstances(ctx, &apb.ListProcessInstancesRequest{})
		_, err4 := admin.AdvanceClock(ctx, &apb.AdvanceClockRequest{DurationMs: 60_000})
		_, err5 := admin.ResetState(ctx, &apb.ResetStateRequest{})
		for i, e := range []error{err1, err2, err3, err4, err5} {
			if off && status.Code(e) != codes.Unimplemented {
				t.Errorf("--no-admin: admin call %d: want UNIMPLEMENTED, got %v", i, e)
			}
		}
		if !off && (err1 != nil || err3 != nil || err4 != nil || err5 != nil) {
			t.Errorf("admin on: ListJobs %v, ListProcessInstances %v, AdvanceClock %v, ResetState %v", err1, err3, err4, err5)
		}
		cancel()
		conn.Close()
	}
}
