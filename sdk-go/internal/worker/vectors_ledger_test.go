package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/vectors"
)

// The shared ledger and poller vectors (conformance-tests/vectors/ledger.json
// and poller.json, read in place) against Ledger, planPoll, afterPoll,
// pollDeadline and emptyPollPause.

type ledgerStep struct {
	Op    string          `json:"op"`
	N     int             `json:"n"`
	Parks bool            `json:"parks"`
	Due   bool            `json:"due"`
	Rests bool            `json:"resting"`
	Slot  string          `json:"slot"`
	Want  json.RawMessage `json:"want"`
	Jobs  *int            `json:"jobs"`
	Free  *int            `json:"free"`
}

func readVectors(t *testing.T, name string, v any) {
	t.Helper()
	p, b, err := vectors.Read(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

func TestVectorsLedger(t *testing.T) {
	var v struct {
		Cases []struct {
			Name  string       `json:"name"`
			Max   int          `json:"max"`
			Steps []ledgerStep `json:"steps"`
		} `json:"cases"`
	}
	readVectors(t, "ledger.json", &v)
	if len(v.Cases) < 10 {
		t.Fatalf("ledger.json: %d cases", len(v.Cases))
	}
	done, cancel := context.WithCancel(context.Background())
	cancel() // reserveStream must not wait: a done context returns at once
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			l := NewLedger(c.Max, nil)
			slots := map[string]*Slot{}
			slotWant := func(i int, s ledgerStep, got *Slot) {
				var want *string
				if err := json.Unmarshal(s.Want, &want); err != nil {
					t.Fatalf("step %d: want: %v", i, err)
				}
				switch {
				case want == nil && got != nil:
					t.Fatalf("step %d %s: got a slot, want none", i, s.Op)
				case want != nil && got == nil:
					t.Fatalf("step %d %s: got no slot, want slot %q", i, s.Op, *want)
				case want != nil:
					slots[*want] = got
				}
			}
			boolWant := func(i int, s ledgerStep, got bool) {
				var want bool
				if err := json.Unmarshal(s.Want, &want); err != nil {
					t.Fatalf("step %d: want: %v", i, err)
				}
				if got != want {
					t.Fatalf("step %d %s: got %v, want %v", i, s.Op, got, want)
				}
			}
			for i, s := range c.Steps {
				switch s.Op {
				case "pollWanted":
					var want struct {
						Free  int  `json:"free"`
						Below bool `json:"below"`
					}
					_ = json.Unmarshal(s.Want, &want)
					if free, below := l.PollWanted(); free != want.Free || below != want.Below {
						t.Fatalf("step %d pollWanted: got {%d %v}, want {%d %v}", i, free, below, want.Free, want.Below)
					}
				case "setPollDue":
					l.SetPollDue(s.Due)
				case "restPoll":
					l.RestPoll(s.Rests)
				case "reservePoll":
					var want int
					_ = json.Unmarshal(s.Want, &want)
					if got := l.ReservePoll(s.N, s.Parks); got != want {
						t.Fatalf("step %d reservePoll(%d): got %d, want %d", i, s.N, got, want)
					}
				case "takePoll":
					slotWant(i, s, l.TakePoll())
				case "returnPoll":
					l.ReturnPoll()
				case "reserveStream":
					boolWant(i, s, l.ReserveStream(done) == nil)
				case "claimStream":
					slotWant(i, s, l.ClaimStream())
				case "dropStream":
					l.DropStream()
				case "release":
					sl, ok := slots[s.Slot]
					if !ok {
						t.Fatalf("step %d: no slot %q", i, s.Slot)
					}
					sl.Release()
				case "check":
					jobs, free := l.Jobs(), l.Max()-l.Held()
					if jobs != *s.Jobs || free != *s.Free {
						t.Fatalf("step %d check: jobs %d free %d, want jobs %d free %d", i, jobs, free, *s.Jobs, *s.Free)
					}
				default:
					t.Fatalf("step %d: unknown op %q", i, s.Op)
				}
			}
		})
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestVectorsPoller(t *testing.T) {
	var v struct {
		Plan struct {
			Cases []struct {
				Name string `json:"name"`
				In   struct {
					Free, SinceLastEndMs, RequestTimeoutMs       int
					Below, Pushing, Backfill, Due, StreamEnabled bool
				} `json:"in"`
				Out struct {
					Send             bool `json:"send"`
					Ask              int  `json:"ask"`
					RequestTimeoutMs int  `json:"requestTimeoutMs"`
					Parks            bool `json:"parks"`
					MarkDue          bool `json:"markDue"`
					FairnessInMs     *int `json:"fairnessInMs"`
				} `json:"out"`
			} `json:"cases"`
		} `json:"plan"`
		Deadline struct {
			Cases []struct{ RequestTimeoutMs, DeadlineMs int } `json:"cases"`
		} `json:"deadline"`
		EmptyPause struct {
			Cases []struct {
				RequestTimeoutMs, ElapsedMs int
				Pause                       bool
			} `json:"cases"`
		} `json:"emptyPause"`
		AfterPoll struct {
			Cases []struct {
				Pushing, Failed, Backfill, Parks, Due, Stall bool
				Asked, Got                                   int
				FirstJobMs                                   *int
			} `json:"cases"`
		} `json:"afterPoll"`
	}
	readVectors(t, "poller.json", &v)
	if len(v.Plan.Cases) < 10 || len(v.Deadline.Cases) == 0 || len(v.EmptyPause.Cases) == 0 || len(v.AfterPoll.Cases) == 0 {
		t.Fatal("poller.json: a section is missing")
	}
	for _, c := range v.Plan.Cases {
		in := c.In
		got := planPoll(pollInput{free: in.Free, below: in.Below, pushing: in.Pushing, backfill: in.Backfill, due: in.Due,
			sinceLastEnd: ms(in.SinceLastEndMs), streamEnabled: in.StreamEnabled, requestTimeout: ms(in.RequestTimeoutMs)})
		o := c.Out
		fair := time.Duration(0)
		if o.FairnessInMs != nil {
			fair = ms(*o.FairnessInMs)
		}
		want := pollDecision{send: o.Send, markDue: o.MarkDue, fairnessIn: fair}
		if o.Send {
			want.ask, want.requestTimeout, want.parks = o.Ask, ms(o.RequestTimeoutMs), o.Parks
			if o.RequestTimeoutMs < 0 {
				want.requestTimeout = -1 // no long polling: the request says −1
			}
		}
		if got != want {
			t.Errorf("plan %q: got %+v, want %+v", c.Name, got, want)
		}
	}
	for _, c := range v.Deadline.Cases {
		if got := pollDeadline(ms(c.RequestTimeoutMs)); got != ms(c.DeadlineMs) {
			t.Errorf("pollDeadline(%d ms) = %v, want %d ms", c.RequestTimeoutMs, got, c.DeadlineMs)
		}
	}
	for _, c := range v.EmptyPause.Cases {
		if got := emptyPollPause(ms(c.RequestTimeoutMs), ms(c.ElapsedMs)); got != c.Pause {
			t.Errorf("emptyPollPause(%d ms, %d ms) = %v, want %v", c.RequestTimeoutMs, c.ElapsedMs, got, c.Pause)
		}
	}
	for i, c := range v.AfterPoll.Cases {
		first := time.Duration(0)
		if c.FirstJobMs != nil {
			first = ms(*c.FirstJobMs)
		}
		got := afterPoll(c.Pushing, c.Failed, c.Asked, c.Got, c.Backfill, c.Parks, first)
		if want := (pollAfter{due: c.Due, stall: c.Stall}); got != want {
			t.Errorf("afterPoll case %d %s: got %+v, want %+v", i, fmt.Sprint(c), got, want)
		}
	}
}
