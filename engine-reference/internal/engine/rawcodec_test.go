package engine

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
)

// rawMsg lets a test send bytes that Go protobuf would refuse to marshal.
type rawMsg []byte

type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*rawMsg)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*rawMsg)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

func forceRawCodec() grpc.CallOption { return grpc.ForceCodec(rawCodec{}) }
