package engine

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	spb "github.com/jobwire/jobwire/engine-reference/internal/pb/streampb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// openReleasable opens a push stream and returns it with its
// jobwire-stream-id header.
func openReleasable(t *testing.T, en *env, worker string) (pb.Gateway_StreamActivatedJobsClient, context.CancelFunc, string) {
	t.Helper()
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := en.gw.StreamActivatedJobs(c, &pb.StreamActivatedJobsRequest{Type: "work", Worker: worker, Timeout: 60000})
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := s.Header()
	if err != nil {
		t.Fatal(err)
	}
	ids := hdr.Get(gateway.StreamIDHeader)
	if len(ids) != 1 || len(ids[0]) != 32 {
		t.Fatalf("want one 32-hex %s header, got %v", gateway.StreamIDHeader, ids)
	}
	return s, cancel, ids[0]
}

func jobStates(t *testing.T, en *env) map[int64]*apb.JobInfo {
	t.Helper()
	out := map[int64]*apb.JobInfo{}
	for _, j := range en.jobs("work").Jobs {
		out[j.Key] = j
	}
	return out
}

// ReleaseUnread hands back exactly the jobs the stream sent after the first
// messages_read, at once and with retries unchanged, and never a job the
// worker read: those stay activated by the worker and can be completed.
func TestReleaseUnreadHandsBackExactlyTheUnreadJobs(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	s, cancel, sid := openReleasable(t, en, "closing")
	const n, read = 10, 3
	for i := 0; i < n; i++ {
		en.create("one-task", `{"i":1}`)
	}
	// Every job reaches the client's transport; the "worker" reads only the
	// first three (the later ones stand for jobs in its HTTP/2 buffers).
	var got []*pb.ActivatedJob
	for len(got) < n {
		j, err := s.Recv()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, j)
	}
	time.Sleep(100 * time.Millisecond) // the sender records the last Send
	cancel()
	sc := spb.NewStreamControlServiceClient(en.conn)
	r, err := sc.ReleaseUnread(ctx(t), &spb.ReleaseUnreadRequest{StreamId: sid, MessagesRead: read})
	if err != nil {
		t.Fatal(err)
	}
	if r.MessagesSent != n || r.Released != n-read {
		t.Fatalf("want %d sent, %d released; got %v", n, n-read, r)
	}
	eventually(t, 3*time.Second, "unread jobs activatable", func() bool {
		st := jobStates(t, en)
		for _, j := range got[read:] {
			if st[j.Key].State != apb.JobState_JOB_STATE_ACTIVATABLE {
				return false
			}
		}
		return true
	})
	st := jobStates(t, en)
	for _, j := range got[:read] {
		if i := st[j.Key]; i.State != apb.JobState_JOB_STATE_ACTIVATED || i.Worker != "closing" || i.Deadline != j.Deadline {
			t.Fatalf("read job %d must stay activated by its worker, got %v", j.Key, i)
		}
	}
	for _, j := range got[read:] {
		if i := st[j.Key]; i.Retries != 3 || i.TimeoutCount != 0 || i.FailCount != 0 {
			t.Fatalf("released job %d: retries must be unchanged, no timeout, no failure; got %v", j.Key, i)
		}
	}
	polled := en.activate("work", 32, -1)
	var want, have []int64
	for _, j := range got[read:] {
		want = append(want, j.Key)
	}
	for _, j := range polled {
		have = append(have, j.Key)
	}
	sort.Slice(want, func(i, k int) bool { return want[i] < want[k] })
	sort.Slice(have, func(i, k int) bool { return have[i] < have[k] })
	if len(have) != len(want) {
		t.Fatalf("poll after release: want %v, got %v", want, have)
	}
	for i := range want {
		if have[i] != want[i] {
			t.Fatalf("poll after release: want %v, got %v", want, have)
		}
	}
	for _, j := range got[:read] {
		complete(t, en, j.Key, "")
	}
	// Idempotent: a second call hands back nothing more.
	r, err = sc.ReleaseUnread(ctx(t), &spb.ReleaseUnreadRequest{StreamId: sid, MessagesRead: 0})
	if err != nil || r.Released != 0 {
		t.Fatalf("second release: %v %v", r, err)
	}
	if _, err := sc.ReleaseUnread(ctx(t), &spb.ReleaseUnreadRequest{StreamId: "nope", MessagesRead: 0}); status.Code(err) != codes.NotFound {
		t.Fatalf("unknown stream: want NOT_FOUND, got %v", err)
	}
	if _, err := sc.ReleaseUnread(ctx(t), &spb.ReleaseUnreadRequest{StreamId: sid, MessagesRead: -1}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("negative count: want INVALID_ARGUMENT, got %v", err)
	}
}

// A release that arrives while the stream is still open (the cancel not seen
// yet) ends it: nothing more is pushed to it, every job sent and not read is
// handed back, and later jobs go to the worker's next stream.
func TestReleaseUnreadEndsAnOpenStreamAndRepushes(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	old, _, sid := openReleasable(t, en, "recycling")
	const n = 5
	for i := 0; i < n; i++ {
		en.create("one-task", "")
	}
	eventually(t, 3*time.Second, "pushed", func() bool { return en.streams()[0].JobsPushed == n })
	time.Sleep(100 * time.Millisecond)
	sc := spb.NewStreamControlServiceClient(en.conn)
	r, err := sc.ReleaseUnread(ctx(t), &spb.ReleaseUnreadRequest{StreamId: sid, MessagesRead: 0})
	if err != nil || r.Released != n {
		t.Fatalf("release of an open stream: %v %v", r, err)
	}
	// The released stream ends (its n messages are still in the client's
	// buffer; after them comes the end).
	for i := 0; ; i++ {
		if _, err := old.Recv(); err != nil {
			if status.Code(err) != codes.Canceled || i != n {
				t.Fatalf("released stream: want CANCELLED after %d jobs, got %v after %d", n, err, i)
			}
			break
		}
	}
	eventually(t, 3*time.Second, "stream gone", func() bool { return len(en.streams()) == 0 })
	// The hand-backs are commands the partition applies after ReleaseUnread
	// answers: wait for them before the next stream opens, or a job returned
	// after it opened is pushed to it (as it must be) and never counted here.
	eventually(t, 3*time.Second, "released jobs activatable", func() bool {
		return en.jobs("work").CountsByState["ACTIVATABLE"] == n
	})
	next, _, _ := openReleasable(t, en, "recycling")
	en.create("one-task", "")
	if j, err := next.Recv(); err != nil || j.Worker != "recycling" {
		t.Fatalf("new stream: %v %v", j, err)
	}
}
