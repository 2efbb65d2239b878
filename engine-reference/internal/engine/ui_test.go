package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
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
	if _, err := st.Header(); err != nil { // registered once headers arrive (no fixed wait)
		t.Fatal(err)
	}
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

// The page takes the admin API's credential: with an admin token it needs
// that token (Basic password or bearer), never a worker's JWT; with tokens
// required and no admin token it is off, like the admin API; without auth
// it is open.
func TestLiveViewAuth(t *testing.T) {
	tokFile := filepath.Join(t.TempDir(), "admin-token")
	const adminTok = "admin-token-0123456789"
	if err := os.WriteFile(tokFile, []byte(adminTok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	en := start(t, Config{UI: true, OAuth: true, OAuthID: "id1", OAuthKey: "s1", AdminTokenFile: tokFile})
	get := func(url string, set func(*http.Request)) int {
		req, _ := http.NewRequest("GET", url+"api/snapshot", nil)
		if set != nil {
			set(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	u := en.e.UI.URL()
	if c := get(u, nil); c != 401 {
		t.Fatalf("anonymous: %d, want 401", c)
	}
	if c := get(u, func(r *http.Request) { r.SetBasicAuth("id1", "s1") }); c != 401 {
		t.Fatalf("worker client credential: %d, want 401 (the page needs the admin token)", c)
	}
	jwt, err := en.e.Auth.Sign(map[string]any{"aud": "zeebe-api"}, time.Minute) // a valid worker token
	if err != nil {
		t.Fatal(err)
	}
	if c := get(u, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+jwt) }); c != 401 {
		t.Fatalf("worker JWT: %d, want 401", c)
	}
	if c := get(u, func(r *http.Request) { r.SetBasicAuth("admin", adminTok+"x") }); c != 401 {
		t.Fatalf("wrong admin token: %d, want 401", c)
	}
	if c := get(u, func(r *http.Request) { r.SetBasicAuth("anyone", adminTok) }); c != 200 {
		t.Fatalf("admin token as Basic password: %d, want 200", c)
	}
	if c := get(u, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+adminTok) }); c != 200 {
		t.Fatalf("admin token as bearer: %d, want 200", c)
	}
	off := start(t, Config{UI: true, OAuth: true, OAuthID: "id1", OAuthKey: "s1"})
	if c := get(off.e.UI.URL(), func(r *http.Request) { r.SetBasicAuth("id1", "s1") }); c != 401 {
		t.Fatalf("tokens required, no admin token: %d, want 401 (page off like the admin API)", c)
	}
	open := start(t, Config{UI: true})
	if c := get(open.e.UI.URL(), nil); c != 200 {
		t.Fatalf("auth off: %d, want 200", c)
	}
}
