package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/protobuf/proto"

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

func (d decodeStream) RecvMsg(m any) error {
	if err := d.ServerStream.RecvMsg(m); err != nil {
		return mapDecodeError(err)
	}
	if pm, ok := m.(proto.Message); ok {
		if derr, found := streamDecodeErrs.LoadAndDelete(pm); found {
			return status.Errorf(codes.InvalidArgument, "the request could not be decoded (string fields must be valid UTF-8): %v", derr)
		}
	}
	return nil
}

// streamDecodeErrs: decode errors of streaming Gateway requests, parked by
// serverCodec for decodeStream. grpc-go's server stream answers a decode
// error itself with INTERNAL before the handler sees it (found by
// FuzzActivateJobs), so the codec lets the handler answer INVALID_ARGUMENT.
var streamDecodeErrs sync.Map

// serverCodec is the proto codec, except that a streaming Gateway request
// that does not decode is handed to decodeStream instead of failing inside
// grpc-go.
type serverCodec struct{}

func (serverCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("serverCodec: %T is not a proto message", v)
	}
	return proto.Marshal(m)
}

func (serverCodec) Unmarshal(b []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("serverCodec: %T is not a proto message", v)
	}
	err := proto.Unmarshal(b, m)
	if err != nil {
		switch m.(type) {
		case *pb.ActivateJobsRequest, *pb.StreamActivatedJobsRequest:
			streamDecodeErrs.Store(m, err)
			return nil
		}
	}
	return err
}

func (serverCodec) Name() string { return "proto" }

func mapDecodeError(err error) error {
	if err == nil {
		return nil
	}
	if s, ok := status.FromError(err); ok && s.Code() == codes.Internal && strings.Contains(s.Message(), "unmarshal") {
		return status.Errorf(codes.InvalidArgument, "the request could not be decoded (string fields must be valid UTF-8): %s", s.Message())
	}
	return err
}
