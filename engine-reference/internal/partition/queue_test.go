package partition

import "testing"

// A job waiting at the head of a type's queue must not make the queue keep
// an entry for every later job that was pushed or finished meanwhile: the
// queue stays proportional to the activatable backlog.
func TestQueueStaysBoundedBehindAWaitingJob(t *testing.T) {
	s := newState(1, NewRegistry(), 0)
	add := func() *Job {
		j := &Job{Key: s.nextKey(), Type: "t"}
		s.Jobs[j.Key] = j
		s.setJobState(j, JobActivatable)
		s.enqueue(j)
		return j
	}
	head := add()
	for i := 0; i < 100_000; i++ {
		j := add()
		s.setJobState(j, JobActivated) // pushed at once: its entry is stale
		if i%2 == 0 {
			s.setJobState(j, JobCompleted)
		}
	}
	if n := len(s.queues["t"]); n > 2048 {
		t.Fatalf("queue holds %d entries for 1 activatable job", n)
	}
	if q := s.queues["t"]; q[0].key != head.Key {
		t.Fatal("the waiting job lost its place")
	}
}
