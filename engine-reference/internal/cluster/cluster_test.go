package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	cpb "github.com/jobwire/jobwire/engine-reference/internal/pb/clusterpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

const bpmnXML = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="t"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`

func ctxT(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func startBroker(t *testing.T, node int32, port int, dir string) *Broker {
	t.Helper()
	b, err := StartBroker(BrokerConfig{NodeID: node, Port: port, DataDir: dir, PartitionIDs: PartitionsOf(node, 2, 4),
		PartitionCount: 4, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The whole gateway ↔ broker path in one process (so the race detector
// sees both sides): two brokers with two partitions each, one gateway.
func TestRemoteBrokers(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	b0, b1 := startBroker(t, 0, 0, dirs[0]), startBroker(t, 1, 0, dirs[1])
	defer func() { b0.Close(); b1.Close() }()
	e, err := engine.StartGateway(engine.Config{Port: 0}, func(gw *gateway.Gateway) (gateway.Broker, io.Closer, error) {
		r, err := NewRemote(gw, "gw-test", []string{b0.Addr(), b1.Addr()}, 5*time.Second, nil)
		return r, r, err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gw, admin := pb.NewGatewayClient(conn), apb.NewAdminServiceClient(conn)
	healthy := func() int {
		top, err := gw.Topology(ctxT(t), &pb.TopologyRequest{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range top.Brokers {
			for _, p := range b.Partitions {
				if p.Health == pb.Partition_HEALTHY {
					n++
				}
			}
		}
		return n
	}
	waitFor(t, "4 healthy partitions", func() bool { return healthy() == 4 })
	if _, err := gw.DeployResource(ctxT(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "p.bpmn", Content: []byte(bpmnXML)}}}); err != nil {
		t.Fatal(err)
	}
	st, err := gw.StreamActivatedJobs(ctxT(t), &pb.StreamActivatedJobsRequest{Type: "t", Worker: "w", Timeout: 60000})
	if err != nil {
		t.Fatal(err)
	}
	st.Header()
	waitFor(t, "stream registered on both brokers", func() bool { return b0.sess.count() == 1 && b1.sess.count() == 1 })
	for i := 0; i < 4; i++ {
		if _, err := gw.CreateProcessInstance(ctxT(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p", Version: -1}); err != nil {
			t.Fatal(err)
		}
	}
	var keys []int64
	for len(keys) < 4 {
		j, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, j.Key)
	}
	// CreateProcessInstanceWithResult across the wire.
	done := make(chan error, 1)
	go func() {
		r, err := gw.CreateProcessInstanceWithResult(ctxT(t), &pb.CreateProcessInstanceWithResultRequest{
			Request: &pb.CreateProcessInstanceRequest{BpmnProcessId: "p", Version: -1, Variables: `{"a":1}`}, RequestTimeout: 10000})
		if err == nil && !strings.Contains(r.Variables, `"b":2`) {
			err = status.Errorf(codes.Internal, "variables %s", r.Variables)
		}
		done <- err
	}()
	j, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gw.CompleteJob(ctxT(t), &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"b":2}`}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("with result: %v", err)
	}
	// Stop broker 1; its partitions (2, 4) are unavailable.
	port := b1.lis.Addr().(*net.TCPAddr).Port
	b1.Close()
	waitFor(t, "2 healthy partitions", func() bool { return healthy() == 2 })
	var on2 int64
	for _, k := range keys {
		if partition.PartitionOf(k) == 2 {
			on2 = k
		}
	}
	if _, err := gw.CompleteJob(ctxT(t), &pb.CompleteJobRequest{JobKey: on2}); status.Code(err) != codes.Unavailable {
		t.Fatalf("complete on stopped broker: %v", err)
	}
	// New instances go to the live partitions and are pushed.
	if _, err := gw.CreateProcessInstance(ctxT(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p", Version: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil { // pushed from a live partition
		t.Fatal(err)
	}
	b1 = startBroker(t, 1, port, dirs[1]) // same port and data dir: recovers
	waitFor(t, "4 healthy partitions again", func() bool { return healthy() == 4 })
	if _, err := gw.CompleteJob(ctxT(t), &pb.CompleteJobRequest{JobKey: on2}); err != nil {
		t.Fatalf("complete after restart: %v", err)
	}
	waitFor(t, "stream re-registered", func() bool { return b1.sess.count() == 1 })
	r, err := admin.ListJobs(ctxT(t), &apb.ListJobsRequest{Type: "t"})
	if err != nil || r.CountsByState["COMPLETED"] != 2 || r.CountsByState["ACTIVATED"] != 4 {
		t.Fatalf("jobs %v %v", r, err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLinkMutualTLS: with link TLS a broker talks only to peers holding a
// certificate of the cluster CA: a gateway with one works, a plaintext
// client and a client with another CA's certificate are refused.
func TestLinkMutualTLS(t *testing.T) {
	link, err := GenerateLinkTLS(filepath.Join(t.TempDir(), "tls"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateLinkTLS(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := StartBroker(BrokerConfig{NodeID: 0, DataDir: t.TempDir(), PartitionIDs: []int32{1}, PartitionCount: 1, NoSync: true, TLS: link})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	gw := gateway.New()
	r, err := NewRemote(gw, "gw-tls", []string{b.Addr()}, 5*time.Second, link)
	if err != nil {
		t.Fatalf("gateway with the cluster certificate: %v", err)
	}
	r.Close()
	try := func(creds credentials.TransportCredentials) error {
		conn, err := grpc.NewClient(b.Addr(), grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_, err = cpb.NewBrokerServiceClient(conn).GetTopology(ctx, &cpb.GetTopologyRequest{})
		return err
	}
	if err := try(insecure.NewCredentials()); status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext client: %v", err)
	}
	oc, _ := other.ClientCreds()
	if err := try(oc); status.Code(err) != codes.Unavailable {
		t.Fatalf("client with another CA's certificate: %v", err)
	}
	lc, _ := link.ClientCreds()
	if err := try(lc); err != nil {
		t.Fatalf("client with the cluster certificate: %v", err)
	}
	if _, err := NewRemote(gateway.New(), "gw-plain", []string{b.Addr()}, 500*time.Millisecond, nil); err == nil {
		t.Fatal("a plaintext gateway must not reach a TLS broker")
	}
}

// TestClusterGatewayMutualTLSAndTokens: a cluster-mode gateway (over a
// broker reached by mutual TLS) verifies client certificates and bearer
// JWTs like `dev`.
func TestClusterGatewayMutualTLSAndTokens(t *testing.T) {
	link, err := GenerateLinkTLS(filepath.Join(t.TempDir(), "tls"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateLinkTLS(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := StartBroker(BrokerConfig{NodeID: 0, DataDir: t.TempDir(), PartitionIDs: []int32{1}, PartitionCount: 1, NoSync: true, TLS: link})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e, err := engine.StartGateway(engine.Config{Port: 0, TLSCert: link.CertFile, TLSKey: link.KeyFile, TLSClientCA: link.CAFile,
		OAuth: true, OAuthKey: "cluster-secret-123"},
		func(gw *gateway.Gateway) (gateway.Broker, io.Closer, error) {
			r, err := NewRemote(gw, "gw-mtls", []string{b.Addr()}, 5*time.Second, link)
			return r, r, err
		})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	topo := func(creds credentials.TransportCredentials, token string) error {
		conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx := ctxT(t)
		if token != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
		}
		_, err = pb.NewGatewayClient(conn).Topology(ctx, &pb.TopologyRequest{})
		return err
	}
	resp, err := http.PostForm(e.Auth.URL, url.Values{"client_id": {"jobwire"}, "client_secret": {"cluster-secret-123"}})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	good, _ := link.ClientCreds()
	if err := topo(good, body.AccessToken); err != nil {
		t.Fatalf("client certificate and token: %v", err)
	}
	if err := topo(good, ""); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("client certificate, no token: %v", err)
	}
	pool := x509.NewCertPool()
	caPEM, _ := os.ReadFile(link.CAFile)
	pool.AppendCertsFromPEM(caPEM)
	otherCert, err := tls.LoadX509KeyPair(other.CertFile, other.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]*tls.Config{"no client certificate": {RootCAs: pool},
		"another CA's certificate": {RootCAs: pool, Certificates: []tls.Certificate{otherCert}}} {
		if err := topo(credentials.NewTLS(tc), body.AccessToken); status.Code(err) != codes.Unavailable {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
