package cluster

import (
	"bytes"
	"context"
	"io"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/stress"
)

func goroutines() string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return b.String()
}

// TestStressNoHangRemote runs the hang hunter over two gateways and two
// brokers in one process (race detector sees the sessions on both sides).
func TestStressNoHangRemote(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	b0, b1 := startBroker(t, 0, 0, dirs[0]), startBroker(t, 1, 0, dirs[1])
	defer func() { b0.Close(); b1.Close() }()
	var gws []*engine.Engine
	var addrs []string
	for i := 0; i < 2; i++ {
		e, err := engine.StartGateway(engine.Config{Port: 0}, func(gw *gateway.Gateway) (gateway.Broker, io.Closer, error) {
			r, err := NewRemote(gw, "gw-stress-"+string(rune('a'+i)), []string{b0.Addr(), b1.Addr()}, 5*time.Second, nil)
			return r, r, err
		})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		gws = append(gws, e)
		addrs = append(addrs, e.Addr())
	}
	for _, e := range gws {
		waitFor(t, "every partition healthy", func() bool {
			for pid := int32(1); pid <= 4; pid++ {
				if !e.GW.Broker().Healthy(pid) {
					return false
				}
			}
			return true
		})
	}
	d := stress.DurationFromEnv(6 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), d+3*time.Minute)
	defer cancel()
	res, err := stress.Run(ctx, stress.Config{Gateways: addrs, RegistryAdmins: addrs, Duration: d, Logf: t.Logf, Dump: goroutines})
	t.Logf("stress (2 gateways + 2 brokers, in-process): %s", res)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instances == 0 || res.Pushed == 0 {
		t.Fatalf("the workload did not exercise push: %s", res)
	}
	if n0, n1 := b0.sess.count(), b1.sess.count(); n0 != 0 || n1 != 0 {
		t.Errorf("brokers still hold stream registrations: %d, %d", n0, n1)
	}
}
