package gateway

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Local is the in-process Broker: partitions running in this process (all
// of them in `dev`; a broker process's own share in cluster mode).
type Local struct {
	Parts  map[int32]*partition.Partition
	Count  int32 // partitions in the cluster
	NodeID int32
	Host   string
	Port   int32
}

// NewLocal returns a Local for every partition 1..len(parts).
func NewLocal(parts []*partition.Partition) *Local {
	m := map[int32]*partition.Partition{}
	for _, p := range parts {
		m[p.ID()] = p
	}
	return &Local{Parts: m, Count: int32(len(parts))}
}

func (l *Local) ids() []int32 {
	out := make([]int32, 0, len(l.Parts))
	for id := range l.Parts {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// IDs returns the local partition ids, sorted.
func (l *Local) IDs() []int32 { return l.ids() }

// PartitionCount is the cluster's partition count.
func (l *Local) PartitionCount() int32 { return l.Count }

func (l *Local) part(pid int32) (*partition.Partition, error) {
	if p := l.Parts[pid]; p != nil {
		return p, nil
	}
	return nil, status.Errorf(codes.Unavailable, "partition %d is not led by this broker", pid)
}

// Submit runs a command on a partition and waits for its answer.
func (l *Local) Submit(ctx context.Context, pid int32, c *partition.Command) (any, error) {
	p, err := l.part(pid)
	if err != nil {
		return nil, err
	}
	return p.Submit(ctx, c)
}

// SubmitWithResult creates an instance and returns its completion channel.
func (l *Local) SubmitWithResult(ctx context.Context, pid int32, c *partition.Command) (any, <-chan partition.Result, error) {
	p, err := l.part(pid)
	if err != nil {
		return nil, nil, err
	}
	return p.SubmitWithResult(ctx, c)
}

// Post enqueues a command without waiting.
func (l *Local) Post(pid int32, c *partition.Command) {
	if p := l.Parts[pid]; p != nil {
		p.Post(c)
	}
}

// Healthy reports whether the partition runs here.
func (l *Local) Healthy(pid int32) bool { return l.Parts[pid] != nil }

// Topology is this one broker leading its partitions.
func (l *Local) Topology() []*pb.BrokerInfo {
	b := &pb.BrokerInfo{NodeId: l.NodeID, Host: l.Host, Port: l.Port, Version: Version}
	for _, id := range l.ids() {
		b.Partitions = append(b.Partitions, &pb.Partition{PartitionId: id, Role: pb.Partition_LEADER, Health: pb.Partition_HEALTHY})
	}
	return []*pb.BrokerInfo{b}
}

// Close closes every local partition, in parallel; each waits at most
// partition.CloseTimeout for its goroutine.
func (l *Local) Close() {
	var wg sync.WaitGroup
	for _, p := range l.Parts {
		if p != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := p.Close(); err != nil {
					fmt.Fprintf(os.Stderr, "jobwire-engine: %v\n", err)
				}
			}()
		}
	}
	wg.Wait()
}
