package supervisor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var engineBin string

// TestMain builds the jobwire-engine binary the cluster runs (without the
// race detector: the children are real engine processes).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jobwire-cluster-bin-")
	if err != nil {
		panic(err)
	}
	engineBin = filepath.Join(dir, "jobwire-engine")
	cmd := exec.Command("go", "build", "-o", engineBin, "../../cmd/jobwire-engine")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testCluster is a running cluster with clients, stopped with the test.
type testCluster struct {
	t     *testing.T
	s     *Supervisor
	conns []*grpc.ClientConn
	gws   []pb.GatewayClient
	admin apb.AdminServiceClient
}

func startCluster(t *testing.T, gateways, brokers, partitions int) *testCluster {
	return startClusterHistory(t, gateways, brokers, partitions, 0)
}

// startClusterHistory starts a cluster whose brokers keep history finished
// instances and jobs per partition (0: the default) for the admin API.
func startClusterHistory(t *testing.T, gateways, brokers, partitions, history int) *testCluster {
	t.Helper()
	t0 := time.Now()
	s, err := Start(Config{Gateways: gateways, Brokers: brokers, Partitions: partitions, Bin: engineBin,
		DataDir: t.TempDir(), Out: testWriter{t}, History: history})
	if err != nil {
		t.Fatalf("cluster start: %v", err)
	}
	t.Logf("cluster healthy after %v", time.Since(t0))
	tc := &testCluster{t: t, s: s}
	t.Cleanup(func() {
		for _, c := range tc.conns {
			c.Close()
		}
		s.Close()
	})
	for _, a := range append(s.GatewayAddrs(), s.AdminAddr()) {
		c, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		tc.conns = append(tc.conns, c)
	}
	for _, c := range tc.conns[:gateways] {
		tc.gws = append(tc.gws, pb.NewGatewayClient(c))
	}
	tc.admin = apb.NewAdminServiceClient(tc.conns[gateways])
	return tc
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

const taskBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="PROC" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="TYPE"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`

func (tc *testCluster) deploy(gw int, proc, typ string) {
	tc.t.Helper()
	x := strings.ReplaceAll(strings.ReplaceAll(taskBPMN, "PROC", proc), "TYPE", typ)
	_, err := tc.gws[gw].DeployResource(ctxT(tc.t, 10*time.Second), &pb.DeployResourceRequest{
		Resources: []*pb.Resource{{Name: proc + ".bpmn", Content: []byte(x)}}})
	if err != nil {
		tc.t.Fatalf("deploy: %v", err)
	}
}
