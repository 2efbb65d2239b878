package cluster

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// A gateway process is SERVING while at least one partition leader is
// reachable and NOT_SERVING while none is (Zeebe's partition-leader
// awareness), for "" and "gateway_protocol.Gateway".
func TestGatewayHealthFollowsTopology(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	b0, b1 := startBroker(t, 0, 0, dirs[0]), startBroker(t, 1, 0, dirs[1])
	defer func() { b0.Close(); b1.Close() }()
	e, err := engine.StartGateway(engine.Config{Port: 0}, func(gw *gateway.Gateway) (gateway.Broker, io.Closer, error) {
		r, err := NewRemote(gw, "gw-health", []string{b0.Addr(), b1.Addr()}, 5*time.Second, nil)
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
	hc := healthpb.NewHealthClient(conn)
	want := func(st healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		for _, svc := range []string{"", "gateway_protocol.Gateway"} {
			waitFor(t, svc+" "+st.String(), func() bool {
				r, err := hc.Check(ctxT(t), &healthpb.HealthCheckRequest{Service: svc})
				return err == nil && r.Status == st
			})
		}
	}
	want(healthpb.HealthCheckResponse_SERVING)
	p0, p1 := b0.lis.Addr().(*net.TCPAddr).Port, b1.lis.Addr().(*net.TCPAddr).Port
	b1.Close()
	want(healthpb.HealthCheckResponse_SERVING) // partitions 1 and 3 still have a leader
	b0.Close()
	want(healthpb.HealthCheckResponse_NOT_SERVING)
	b0 = startBroker(t, 0, p0, dirs[0])
	want(healthpb.HealthCheckResponse_SERVING)
	b1 = startBroker(t, 1, p1, dirs[1])
	want(healthpb.HealthCheckResponse_SERVING)
}
