package engine

// Fuzzing of every Gateway RPC's request handling. Each target sends the
// fuzzer's bytes, as they are, as the request message of one RPC to a real
// `dev` engine (over gRPC on 127.0.0.1, through the same server, decoder,
// interceptors and partitions as any client): seeds are valid requests, so
// mutations give decoded protobufs with random field values as well as
// undecodable bytes. Invariants: the engine never panics (a panic in a
// handler kills the fuzz worker: a crash), never answers UNKNOWN / INTERNAL /
// UNIMPLEMENTED / DATA_LOSS, an OK answer decodes as the RPC's response type,
// and the engine keeps answering Topology.
//
//	go test ./internal/engine -run '^$' -fuzz '^FuzzGatewayRPCs$' -fuzztime 10m   # every RPC, one target
//	go test ./internal/engine -run '^$' -fuzz '^FuzzCompleteJob$' -fuzztime 1m     # one RPC
//
// `go test` (no -fuzz) runs the seeds and testdata/fuzz/<target>/ corpora.

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

type fuzzTarget struct {
	e     *Engine
	conn  *grpc.ClientConn
	gw    pb.GatewayClient
	calls int
	mu    sync.Mutex
}

var (
	fuzzOnce sync.Once
	fuzzEnv  *fuzzTarget
	fuzzErr  error
)

// fuzzEngine starts one engine per fuzz worker process (workers are
// separate processes), with a deployed process and some instances and jobs
// so that small keys name real things.
func fuzzEngine(t *testing.T) *fuzzTarget {
	fuzzOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jobwire-rpcfuzz-")
		if err != nil {
			fuzzErr = err
			return
		}
		e, err := Start(Config{NoSync: true, DataDir: dir, Partitions: 2})
		if err != nil {
			fuzzErr = err
			return
		}
		conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			fuzzErr = err
			return
		}
		ft := &fuzzTarget{e: e, conn: conn, gw: pb.NewGatewayClient(conn)}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		bpmn, _ := os.ReadFile("testdata/one-task.bpmn")
		if _, err := ft.gw.DeployResource(ctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "one-task.bpmn", Content: bpmn}}}); err != nil {
			fuzzErr = err
			return
		}
		for i := 0; i < 4; i++ {
			if _, err := ft.gw.CreateProcessInstance(ctx, &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Variables: `{"n":1}`}); err != nil {
				fuzzErr = err
				return
			}
		}
		fuzzEnv = ft
	})
	if fuzzErr != nil {
		t.Fatalf("fuzz engine: %v", fuzzErr)
	}
	return fuzzEnv
}

var allowedCodes = map[codes.Code]bool{
	codes.OK: true, codes.InvalidArgument: true, codes.NotFound: true, codes.FailedPrecondition: true,
	codes.AlreadyExists: true, codes.ResourceExhausted: true, codes.OutOfRange: true,
	// long polls, streams and with-result calls end at the fuzzer's deadline
	codes.DeadlineExceeded: true, codes.Canceled: true,
}

type rpcSpec struct {
	name   string
	stream bool
	resp   func() proto.Message
}

var gatewayRPCs = []rpcSpec{
	{"ActivateJobs", true, func() proto.Message { return &pb.ActivateJobsResponse{} }},
	{"StreamActivatedJobs", true, func() proto.Message { return &pb.ActivatedJob{} }},
	{"CancelProcessInstance", false, func() proto.Message { return &pb.CancelProcessInstanceResponse{} }},
	{"CompleteJob", false, func() proto.Message { return &pb.CompleteJobResponse{} }},
	{"CreateProcessInstance", false, func() proto.Message { return &pb.CreateProcessInstanceResponse{} }},
	{"CreateProcessInstanceWithResult", false, func() proto.Message { return &pb.CreateProcessInstanceWithResultResponse{} }},
	{"DeployResource", false, func() proto.Message { return &pb.DeployResourceResponse{} }},
	{"FailJob", false, func() proto.Message { return &pb.FailJobResponse{} }},
	{"ThrowError", false, func() proto.Message { return &pb.ThrowErrorResponse{} }},
	{"PublishMessage", false, func() proto.Message { return &pb.PublishMessageResponse{} }},
	{"ResolveIncident", false, func() proto.Message { return &pb.ResolveIncidentResponse{} }},
	{"SetVariables", false, func() proto.Message { return &pb.SetVariablesResponse{} }},
	{"Topology", false, func() proto.Message { return &pb.TopologyResponse{} }},
	{"UpdateJobRetries", false, func() proto.Message { return &pb.UpdateJobRetriesResponse{} }},
	{"UpdateJobTimeout", false, func() proto.Message { return &pb.UpdateJobTimeoutResponse{} }},
	{"ModifyProcessInstance", false, func() proto.Message { return &pb.ModifyProcessInstanceResponse{} }},
	{"MigrateProcessInstance", false, func() proto.Message { return &pb.MigrateProcessInstanceResponse{} }},
	{"DeleteResource", false, func() proto.Message { return &pb.DeleteResourceResponse{} }},
}

func specOf(name string) rpcSpec {
	for _, s := range gatewayRPCs {
		if s.name == name {
			return s
		}
	}
	panic("unknown RPC " + name)
}

// jobKey / instanceKey: keys that exist in the fuzz engine (partition 1 or
// 2, small counters) so mutations explore found and not-found paths.
func key(partition, n int64) int64 { return partition<<51 | n }

// rpcSeeds are valid requests for each RPC (also the seed corpus).
func rpcSeeds(name string) []proto.Message {
	vars := `{"a":1,"b":[true,null,"x"],"c":{"d":12345678901234567890}}`
	switch name {
	case "ActivateJobs":
		return []proto.Message{&pb.ActivateJobsRequest{Type: "one", Worker: "w", Timeout: 1000, MaxJobsToActivate: 2, RequestTimeout: -1},
			&pb.ActivateJobsRequest{Type: "one", Timeout: 50, MaxJobsToActivate: 1, RequestTimeout: 100, FetchVariable: []string{"n"}, TenantIds: []string{"<default>"}}}
	case "StreamActivatedJobs":
		return []proto.Message{&pb.StreamActivatedJobsRequest{Type: "one", Worker: "w", Timeout: 1000, FetchVariable: []string{"n"}}}
	case "CancelProcessInstance":
		return []proto.Message{&pb.CancelProcessInstanceRequest{ProcessInstanceKey: key(1, 3)}}
	case "CompleteJob":
		return []proto.Message{&pb.CompleteJobRequest{JobKey: key(1, 4), Variables: vars}, &pb.CompleteJobRequest{JobKey: key(2, 4)}}
	case "CreateProcessInstance":
		return []proto.Message{&pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: vars},
			&pb.CreateProcessInstanceRequest{ProcessDefinitionKey: key(1, 1)}}
	case "CreateProcessInstanceWithResult":
		return []proto.Message{&pb.CreateProcessInstanceWithResultRequest{Request: &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Variables: vars},
			RequestTimeout: 50, FetchVariables: []string{"a"}}}
	case "DeployResource":
		bpmn, _ := os.ReadFile("testdata/flow.bpmn")
		return []proto.Message{&pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "flow.bpmn", Content: bpmn}}}}
	case "FailJob":
		return []proto.Message{&pb.FailJobRequest{JobKey: key(1, 4), Retries: 2, ErrorMessage: "boom", RetryBackOff: 10, Variables: vars}}
	case "ThrowError":
		return []proto.Message{&pb.ThrowErrorRequest{JobKey: key(1, 4), ErrorCode: "E1", ErrorMessage: "m", Variables: vars}}
	case "PublishMessage":
		return []proto.Message{&pb.PublishMessageRequest{Name: "m", CorrelationKey: "k", TimeToLive: 1000, MessageId: "id-1", Variables: vars}}
	case "ResolveIncident":
		return []proto.Message{&pb.ResolveIncidentRequest{IncidentKey: key(1, 5)}}
	case "SetVariables":
		return []proto.Message{&pb.SetVariablesRequest{ElementInstanceKey: key(1, 3), Variables: vars, Local: true}}
	case "Topology":
		return []proto.Message{&pb.TopologyRequest{}}
	case "UpdateJobRetries":
		return []proto.Message{&pb.UpdateJobRetriesRequest{JobKey: key(1, 4), Retries: 5}}
	case "UpdateJobTimeout":
		return []proto.Message{&pb.UpdateJobTimeoutRequest{JobKey: key(1, 4), Timeout: 60000}}
	case "ModifyProcessInstance":
		return []proto.Message{&pb.ModifyProcessInstanceRequest{ProcessInstanceKey: key(1, 3),
			ActivateInstructions: []*pb.ModifyProcessInstanceRequest_ActivateInstruction{{ElementId: "task", AncestorElementInstanceKey: key(1, 3),
				VariableInstructions: []*pb.ModifyProcessInstanceRequest_VariableInstruction{{ScopeId: "task", Variables: vars}, {Variables: vars}}}},
			TerminateInstructions: []*pb.ModifyProcessInstanceRequest_TerminateInstruction{{ElementInstanceKey: key(1, 5)}}}}
	case "MigrateProcessInstance":
		return []proto.Message{&pb.MigrateProcessInstanceRequest{ProcessInstanceKey: key(1, 3), MigrationPlan: &pb.MigrateProcessInstanceRequest_MigrationPlan{
			TargetProcessDefinitionKey: key(1, 2), MappingInstructions: []*pb.MigrateProcessInstanceRequest_MappingInstruction{{SourceElementId: "task", TargetElementId: "task"}}}}}
	case "DeleteResource":
		return []proto.Message{&pb.DeleteResourceRequest{ResourceKey: key(1, 2)}, &pb.DeleteResourceRequest{ResourceKey: key(1, 99)}}
	}
	return nil
}

// call sends data as the request of RPC spec and checks the invariants.
func (ft *fuzzTarget) call(t *testing.T, spec rpcSpec, data []byte) {
	method := "/gateway_protocol.Gateway/" + spec.name
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req := rawMsg(data)
	var err error
	var replies []rawMsg
	if spec.stream {
		var cs grpc.ClientStream
		cs, err = ft.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, method, forceRawCodec())
		if err == nil {
			if err = cs.SendMsg(&req); err == nil {
				err = cs.CloseSend()
			}
			for err == nil {
				var out rawMsg
				if err = cs.RecvMsg(&out); err == nil {
					replies = append(replies, out)
				}
			}
			if err.Error() == "EOF" {
				err = nil
			}
		}
	} else {
		var out rawMsg
		err = ft.conn.Invoke(ctx, method, &req, &out, forceRawCodec())
		if err == nil {
			replies = append(replies, out)
		}
	}
	code := status.Code(err)
	if !allowedCodes[code] {
		t.Fatalf("%s(%x): unexpected status %v", spec.name, data, err)
	}
	for _, r := range replies {
		if uerr := proto.Unmarshal(r, spec.resp()); uerr != nil {
			t.Fatalf("%s(%x): the OK answer does not decode as %T: %v", spec.name, data, spec.resp(), uerr)
		}
	}
	ft.mu.Lock()
	ft.calls++
	probe := ft.calls%50 == 0
	ft.mu.Unlock()
	if probe { // the engine still answers (nothing wedged by the input)
		pctx, pcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer pcancel()
		if _, err := ft.gw.Topology(pctx, &pb.TopologyRequest{}); err != nil {
			t.Fatalf("after %s(%x) the engine no longer answers Topology: %v", spec.name, data, err)
		}
	}
}

func fuzzOne(f *testing.F, name string) {
	for _, m := range rpcSeeds(name) {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff})
	spec := specOf(name)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzEngine(t).call(t, spec, data) })
}

// FuzzGatewayRPCs fuzzes every RPC from one target (the first byte picks
// the RPC), for long runs that cover all of them.
func FuzzGatewayRPCs(f *testing.F) {
	for i, s := range gatewayRPCs {
		for _, m := range rpcSeeds(s.name) {
			b, _ := proto.Marshal(m)
			f.Add(byte(i), b)
		}
	}
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		fuzzEngine(t).call(t, gatewayRPCs[int(which)%len(gatewayRPCs)], data)
	})
}

func FuzzActivateJobs(f *testing.F)          { fuzzOne(f, "ActivateJobs") }
func FuzzStreamActivatedJobs(f *testing.F)   { fuzzOne(f, "StreamActivatedJobs") }
func FuzzCancelProcessInstance(f *testing.F) { fuzzOne(f, "CancelProcessInstance") }
func FuzzCompleteJob(f *testing.F)           { fuzzOne(f, "CompleteJob") }
func FuzzCreateProcessInstance(f *testing.F) { fuzzOne(f, "CreateProcessInstance") }
func FuzzCreateProcessInstanceWithResult(f *testing.F) {
	fuzzOne(f, "CreateProcessInstanceWithResult")
}
func FuzzDeployResource(f *testing.F)   { fuzzOne(f, "DeployResource") }
func FuzzFailJob(f *testing.F)          { fuzzOne(f, "FailJob") }
func FuzzThrowError(f *testing.F)       { fuzzOne(f, "ThrowError") }
func FuzzPublishMessage(f *testing.F)   { fuzzOne(f, "PublishMessage") }
func FuzzResolveIncident(f *testing.F)  { fuzzOne(f, "ResolveIncident") }
func FuzzSetVariables(f *testing.F)     { fuzzOne(f, "SetVariables") }
func FuzzTopology(f *testing.F)         { fuzzOne(f, "Topology") }
func FuzzUpdateJobRetries(f *testing.F) { fuzzOne(f, "UpdateJobRetries") }
func FuzzUpdateJobTimeout(f *testing.F) { fuzzOne(f, "UpdateJobTimeout") }
func FuzzModifyProcessInstance(f *testing.F) {
	fuzzOne(f, "ModifyProcessInstance")
}
func FuzzMigrateProcessInstance(f *testing.F) {
	fuzzOne(f, "MigrateProcessInstance")
}
func FuzzDeleteResource(f *testing.F) { fuzzOne(f, "DeleteResource") }
