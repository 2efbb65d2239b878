package engine

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// decodeErrorsAsInvalidArgument wraps a service's handlers so a request
// that cannot be decoded (e.g. a string field with invalid UTF-8, which Go
// protobuf refuses) is answered INVALID_ARGUMENT, as Zeebe answers bad
// input, instead of grpc-go's INTERNAL.
func decodeErrorsAsInvalidArgument(sd grpc.ServiceDesc) grpc.ServiceDesc {
	out := sd
	out.Methods = make([]grpc.MethodDesc, len(sd.Methods))
	for i, m := range sd.Methods {
		h := m.Handler
		m.Handler = func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
			return h(srv, ctx, func(v any) error { return mapDecodeError(dec(v)) }, ic)
		}
		out.Methods[i] = m
	}
	out.Streams = make([]grpc.StreamDesc, len(sd.Streams))
	for i, s := range sd.Streams {
		h := s.Handler
		s.Handler = func(srv any, ss grpc.ServerStream) error { return h(srv, decodeStream{ss}) }
		out.Streams[i] = s
	}
	return out
}

type decodeStream struct{ grpc.ServerStream }

func (d decodeStream) RecvMsg(m any) error { return mapDecodeError(d.ServerStream.RecvMsg(m)) }

func mapDecodeError(err error) error {
	if err == nil {
		return nil
	}
	if s, ok := status.FromError(err); ok && s.Code() == codes.Internal && strings.Contains(s.Message(), "unmarshal") {
		return status.Errorf(codes.InvalidArgument, "the request could not be decoded (string fields must be valid UTF-8): %s", s.Message())
	}
	return err
}
