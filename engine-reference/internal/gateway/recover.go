package gateway

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// RecoverUnary turns a panic in a unary handler into an INTERNAL status for
// that one call: no request can take the process down. The stack goes to
// stderr because a panic is always a bug worth reporting.
func RecoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, panicStatus(info.FullMethod, r)
		}
	}()
	return h(ctx, req)
}

// RecoverStream is RecoverUnary for streaming handlers.
func RecoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicStatus(info.FullMethod, r)
		}
	}()
	return h(srv, ss)
}

func panicStatus(method string, r any) error {
	fmt.Fprintf(os.Stderr, "jobwire-engine: panic in %s: %v\n%s", method, r, debug.Stack())
	return status.Errorf(codes.Internal, "internal error in %s: %v", method, r)
}
