package stress

import (
	"context"
	"errors"
	"fmt"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// The watchdog: the gateway and every partition must keep answering while
// the workload runs (see the package comment).

// watchdog probes the gateway and every partition every 200 ms.
func (r *run) watchdog(ctx context.Context, partitions int32) {
	conn, err := grpc.NewClient(r.cfg.Gateways[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		r.reportHang(fmt.Sprintf("watchdog cannot dial: %v", err))
		return
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	probe := func(what string, f func(context.Context) error) bool {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		t0 := time.Now()
		err := f(c)
		d := time.Since(t0)
		if ctx.Err() != nil {
			return false
		}
		r.c.probes.Add(1)
		for {
			m := r.c.maxProbe.Load()
			if int64(d) <= m || r.c.maxProbe.CompareAndSwap(m, int64(d)) {
				break
			}
		}
		if status.Code(err) == codes.DeadlineExceeded || d >= 2*time.Second {
			r.reportHang(fmt.Sprintf("HANG: %s did not answer within 2 s (%v after %v)", what, err, d))
			return false
		}
		if err != nil {
			r.reportHang(fmt.Sprintf("watchdog: %s failed: %v", what, err))
			return false
		}
		return true
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !probe("Topology", func(c context.Context) error {
			_, err := gw.Topology(c, &pb.TopologyRequest{})
			return err
		}) {
			return
		}
		for pid := int32(1); pid <= partitions; pid++ {
			key := int64(pid)<<51 | 1<<50 // a key no partition hands out in a test's lifetime
			if !probe(fmt.Sprintf("partition %d (CompleteJob of an unknown key)", pid), func(c context.Context) error {
				_, err := gw.CompleteJob(c, &pb.CompleteJobRequest{JobKey: key})
				if status.Code(err) == codes.NotFound {
					return nil
				}
				if err == nil {
					return errors.New("completed a job that cannot exist")
				}
				return err
			}) {
				return
			}
		}
	}
}

func (r *run) reportHang(msg string) {
	if r.cfg.Dump != nil {
		msg += "\n===== engine goroutines =====\n" + r.cfg.Dump()
	}
	select {
	case r.hang <- msg:
	default:
	}
}
