package jobwire_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// TestGoldenVectors decodes the cross-language vectors in proto/testdata,
// checks their values against vectors.json, and re-encodes them: the bytes
// must match exactly what every other SDK produces.
func TestGoldenVectors(t *testing.T) {
	dir := filepath.Join("..", "proto", "testdata")
	raw, err := os.ReadFile(filepath.Join(dir, "vectors.json"))
	if err != nil {
		t.Fatalf("read manifest: %v", err)
	}
	var manifest map[string]struct {
		Message string          `json:"message"`
		File    string          `json:"file"`
		Fields  json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatalf("parse manifest: %v", err)
	}
	newMsg := map[string]func() proto.Message{
		"gateway_protocol.ActivatedJob":               func() proto.Message { return &pb.ActivatedJob{} },
		"gateway_protocol.StreamActivatedJobsRequest": func() proto.Message { return &pb.StreamActivatedJobsRequest{} },
		"gateway_protocol.FailJobRequest":             func() proto.Message { return &pb.FailJobRequest{} },
	}
	if len(manifest) != len(newMsg) {
		t.Fatalf("manifest has %d vectors, test knows %d", len(manifest), len(newMsg))
	}
	for name, v := range manifest {
		t.Run(name, func(t *testing.T) {
			hexText, err := os.ReadFile(filepath.Join(dir, v.File))
			if err != nil {
				t.Fatal(err)
			}
			want, err := hex.DecodeString(strings.TrimSpace(string(hexText)))
			if err != nil {
				t.Fatal(err)
			}
			mk, ok := newMsg[v.Message]
			if !ok {
				t.Fatalf("unknown message %s", v.Message)
			}
			got := mk()
			if err := (proto.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(want, got); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(got.ProtoReflect().GetUnknown()) != 0 {
				t.Fatalf("vector has fields this SDK does not know")
			}
			// The decoded values equal the manifest's (written by protobuf's JSON mapping).
			expected := mk()
			if err := protojson.Unmarshal(v.Fields, expected); err != nil {
				t.Fatalf("manifest fields: %v", err)
			}
			if !proto.Equal(got, expected) {
				t.Fatalf("decoded %v, manifest says %v", got, expected)
			}
			enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, want) {
				t.Fatalf("re-encoded bytes differ:\n got %x\nwant %x", enc, want)
			}
		})
	}
	// The headline values, spelled out.
	b, _ := os.ReadFile(filepath.Join(dir, "activated_job.hex"))
	data, _ := hex.DecodeString(strings.TrimSpace(string(b)))
	var job pb.ActivatedJob
	if err := proto.Unmarshal(data, &job); err != nil {
		t.Fatal(err)
	}
	if job.Key != 1<<60+7 {
		t.Errorf("key = %d, want 2^60+7", job.Key)
	}
	if job.Type != "payment-ünïcödé-💳" {
		t.Errorf("type = %q", job.Type)
	}
}
