package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// sseEvents reads the live view's event stream into a channel of
// (event, data) pairs until the test ends.
func sseEvents(t *testing.T, url string) <-chan [2]string {
	t.Helper()
	resp, err := http.Get(url + "api/events")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { resp.Body.Close() })
	out := make(chan [2]string, 1024)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var ev string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev = line[7:]
			case strings.HasPrefix(line, "data: "):
				out <- [2]string{ev, line[6:]}
			}
		}
		close(out)
	}()
	return out
}

// The live view gets a committed change as an SSE delta: the created
// instance, its job activated for the push stream, then completed, without
// anyone asking the partitions.
func TestLiveViewStreamsCommittedBatches(t *testing.T) {
	en := start(t, Config{UI: true})
	if en.e.UI == nil {
		t.Fatal("no live view server")
	}
	events := sseEvents(t, en.e.UI.URL())
	first := <-events
	if first[0] != "snapshot" {
		t.Fatalf("first event %q, want snapshot", first[0])
	}
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	c := ctx(t)
	st, err := en.gw.StreamActivatedJobs(c, &pb.StreamActivatedJobsRequest{Type: "work", Worker: "ui-go-test", Timeout: 30000})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the stream registers
	key := en.create("one-task", `{"n":1}`)
	job, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.CompleteJob(c, &pb.CompleteJobRequest{JobKey: job.Key}); err != nil {
		t.Fatal(err)
	}
	var sawActivated, sawCompleted bool
	var pushes int
	deadline := time.After(10 * time.Second)
	for !(sawActivated && sawCompleted) {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("event stream ended")
			}
			if ev[0] != "delta" {
				continue
			}
			var d struct {
				Batches []struct {
					At     int64 `json:"at"`
					Counts struct {
						Push map[string]int `json:"push"`
					} `json:"counts"`
					Jobs []struct {
						Key, Instance, State, Worker string
					} `json:"jobs"`
					Instances []struct{ Key, State string } `json:"instances"`
				} `json:"batches"`
			}
			if err := json.Unmarshal([]byte(ev[1]), &d); err != nil {
				t.Fatalf("delta: %v", err)
			}
			for _, b := range d.Batches {
				if b.At <= 0 || b.At > time.Now().UnixNano() {
					t.Fatalf("commit time %d", b.At)
				}
				pushes += b.Counts.Push["work"]
				for _, j := range b.Jobs {
					if j.Key == fmt.Sprint(job.Key) && j.Instance == fmt.Sprint(key) && j.State == "ACTIVATED" && j.Worker == "ui-go-test" {
						sawActivated = true
					}
				}
				for _, in := range b.Instances {
					if in.Key == fmt.Sprint(key) && in.State == "COMPLETED" {
						sawCompleted = true
					}
				}
			}
		case <-deadline:
			t.Fatalf("no delta showed job %d activated (%v) and instance %d completed (%v)", job.Key, sawActivated, key, sawCompleted)
		}
	}
	if pushes != 1 {
		t.Fatalf("push activations counted %d, want 1", pushes)
	}
}

// With --oauth the page needs a credential; without, it is open.
func TestLiveViewAuth(t *testing.T) {
	en := start(t, Config{UI: true, OAuth: true, OAuthID: "id1", OAuthKey: "s1"})
	get := func(user, pass string) int {
		req, _ := http.NewRequest("GET", en.e.UI.URL()+"api/snapshot", nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get("", ""); c != 401 {
		t.Fatalf("anonymous: %d, want 401", c)
	}
	if c := get("id1", "wrong"); c != 401 {
		t.Fatalf("wrong secret: %d, want 401", c)
	}
	if c := get("id1", "s1"); c != 200 {
		t.Fatalf("client credential: %d, want 200", c)
	}
	open := start(t, Config{UI: true})
	resp, err := http.Get(open.e.UI.URL() + "api/snapshot")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("auth off: %d, want 200", resp.StatusCode)
	}
}
