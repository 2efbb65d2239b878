package engine

import (
	"context"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/decisionpb"
	"google.golang.org/grpc"
)

// EvaluateDecisionMethod is Zeebe's path of the RPC.
const EvaluateDecisionMethod = "/gateway_protocol.Gateway/EvaluateDecision"

// withEvaluateDecision adds Zeebe's EvaluateDecision to the Gateway
// service. gateway.proto declares only the RPCs the SDKs use; the messages
// are in proto/jobwire/decision/v1 (wire-compatible with Zeebe's), so
// official clients evaluate decisions at Zeebe's path.
func withEvaluateDecision(sd grpc.ServiceDesc) grpc.ServiceDesc {
	out := sd
	out.Methods = append(append([]grpc.MethodDesc(nil), sd.Methods...), grpc.MethodDesc{
		MethodName: "EvaluateDecision",
		Handler: func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
			in := new(decisionpb.EvaluateDecisionRequest)
			if err := dec(in); err != nil {
				return nil, err
			}
			gw := srv.(*gateway.Gateway)
			if ic == nil {
				return gw.EvaluateDecision(ctx, in)
			}
			info := &grpc.UnaryServerInfo{Server: srv, FullMethod: EvaluateDecisionMethod}
			return ic(ctx, in, info, func(ctx context.Context, req any) (any, error) {
				return gw.EvaluateDecision(ctx, req.(*decisionpb.EvaluateDecisionRequest))
			})
		},
	})
	return out
}
