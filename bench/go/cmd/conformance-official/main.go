// Command conformance-official is the conformance driver
// (conformance-tests/DRIVER-CONTRACT.md) for the official Zeebe Go client,
// github.com/camunda/zeebe/clients/go/v8 (pinned in ../../go.mod, the version the
// bench uses). It expresses each contract step the way a user of that client
// writes it — the handler completes, fails (retries − 1) or throws an error
// itself — and adds nothing the client lacks: no worker states, no spans or
// metrics, no auto-extension, no recovery of a panicking handler. Run by
// conformance-tests/peers/official-go/run.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/entities"
	"github.com/camunda/zeebe/clients/go/v8/pkg/worker"
	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"
	"google.golang.org/grpc/status"
)

const version = "8.5.0"

var outMu sync.Mutex

func emit(event string, fields map[string]any) {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["t"] = float64(time.Now().UnixNano()) / 1e6
	fields["event"] = event
	b, _ := json.Marshal(fields)
	outMu.Lock()
	os.Stdout.Write(append(b, '\n'))
	outMu.Unlock()
}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, "[official-go] "+format+"\n", a...) }

type command struct {
	Cmd       string            `json:"cmd"`
	ID        string            `json:"id"`
	JobType   string            `json:"jobType"`
	Options   options           `json:"options"`
	Behavior  []json.RawMessage `json:"behavior"`
	TimeoutMs *int64            `json:"timeoutMs"`
	Count     *int              `json:"count"`
}

type options struct {
	WorkerName       *string  `json:"workerName"`
	MaxJobsActive    *int     `json:"maxJobsActive"`
	Concurrency      *int     `json:"concurrency"`
	JobTimeoutMs     *int64   `json:"jobTimeoutMs"`
	RequestTimeoutMs *int64   `json:"requestTimeoutMs"`
	PollIntervalMs   *int64   `json:"pollIntervalMs"`
	StreamEnabled    *bool    `json:"streamEnabled"`
	StreamTimeoutMs  *int64   `json:"streamTimeoutMs"`
	FetchVariables   []string `json:"fetchVariables"`
	AutoExtend       *bool    `json:"autoExtend"`
	RetryBackOffMs   *int64   `json:"retryBackOffMs"`
}

// gate is the counting gate of `block` steps, opened by `release`.
type gate struct {
	mu      sync.Mutex
	permits int
	waiters []chan struct{}
}

func (g *gate) wait() {
	g.mu.Lock()
	if g.permits > 0 {
		g.permits--
		g.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	g.waiters = append(g.waiters, ch)
	g.mu.Unlock()
	<-ch
}

func (g *gate) release(count *int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if count == nil {
		n := len(g.waiters)
		for _, ch := range g.waiters {
			close(ch)
		}
		g.waiters = nil
		return n
	}
	n := *count
	for n > 0 && len(g.waiters) > 0 {
		close(g.waiters[0])
		g.waiters = g.waiters[1:]
		n--
	}
	g.permits += n
	return *count
}

type runningWorker struct {
	w    worker.JobWorker
	gate *gate
}

var (
	client  zbc.Client
	mu      sync.Mutex
	workers = map[string]*runningWorker{}
)

func codeOf(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Code().String()
	}
	return ""
}

func reportErr(id string, err error) {
	f := map[string]any{"worker": id, "message": err.Error()}
	if c := codeOf(err); c != "" && c != "Unknown" {
		f["code"] = upperSnake(c)
	}
	emit("error", f)
}

// upperSnake turns grpc-go's code names (NotFound) into the contract's (NOT_FOUND).
func upperSnake(s string) string {
	out := make([]byte, 0, len(s)+4)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'A' && ch <= 'Z' {
			if i > 0 {
				out = append(out, '_')
			}
			out = append(out, ch)
		} else {
			out = append(out, ch-'a'+'A')
		}
	}
	return string(out)
}

func startWorker(c command) {
	g := &gate{}
	o := c.Options
	id := c.ID
	var backoff time.Duration
	if o.RetryBackOffMs != nil {
		backoff = time.Duration(*o.RetryBackOffMs) * time.Millisecond
	}
	handler := func(jc worker.JobClient, job entities.Job) {
		t0 := time.Now()
		key := strconv.FormatInt(job.GetKey(), 10)
		emit("job_start", map[string]any{"worker": id, "key": key, "type": job.GetType(), "retries": job.GetRetries(),
			"variables": job.GetVariables(), "deadline": job.GetDeadline()})
		steps := c.Behavior
		var vars map[string]json.RawMessage
		if json.Unmarshal([]byte(job.GetVariables()), &vars) == nil {
			if b, ok := vars["jwBehavior"]; ok {
				var override []json.RawMessage
				if json.Unmarshal(b, &override) == nil {
					steps = override
				}
			}
		}
		outcome := "completed"
		defer func() {
			emit("job_end", map[string]any{"worker": id, "key": key, "outcome": outcome, "durationMs": time.Since(t0).Milliseconds()})
		}()
		ctx := context.Background()
		for _, raw := range steps {
			var st map[string]json.RawMessage
			_ = json.Unmarshal(raw, &st)
			switch {
			case st["sleep"] != nil:
				var ms int64
				_ = json.Unmarshal(st["sleep"], &ms)
				time.Sleep(time.Duration(ms) * time.Millisecond)
			case st["block"] != nil:
				g.wait()
			case st["extendTimeout"] != nil:
				var ms int64
				_ = json.Unmarshal(st["extendTimeout"], &ms)
				if _, err := client.NewUpdateJobTimeoutCommand().JobKey(job.GetKey()).Timeout(ms).Send(ctx); err != nil {
					reportErr(id, err)
				}
			case st["complete"] != nil:
				v := string(st["complete"])
				if v == "null" {
					v = "{}"
				}
				complete(ctx, jc, id, job, v)
				return
			case st["completeEcho"] != nil:
				complete(ctx, jc, id, job, job.GetVariables())
				return
			case st["fail"] != nil:
				var msg string
				_ = json.Unmarshal(st["fail"], &msg)
				outcome = "failed"
				cmd := jc.NewFailJobCommand().JobKey(job.GetKey()).Retries(job.GetRetries() - 1).ErrorMessage(msg)
				if backoff > 0 {
					cmd = cmd.RetryBackoff(backoff)
				}
				if _, err := cmd.Send(ctx); err != nil {
					reportErr(id, err)
				}
				return
			case st["throwError"] != nil:
				var e struct {
					Code      string          `json:"code"`
					Message   string          `json:"message"`
					Variables json.RawMessage `json:"variables"`
				}
				_ = json.Unmarshal(st["throwError"], &e)
				outcome = "error"
				cmd := jc.NewThrowErrorCommand().JobKey(job.GetKey()).ErrorCode(e.Code).ErrorMessage(e.Message)
				if len(e.Variables) > 0 && string(e.Variables) != "null" {
					var err error
					if cmd, err = cmd.VariablesFromString(string(e.Variables)); err != nil {
						reportErr(id, err)
						return
					}
				}
				if _, err := cmd.Send(ctx); err != nil {
					reportErr(id, err)
				}
				return
			case st["crash"] != nil:
				var msg string
				_ = json.Unmarshal(st["crash"], &msg)
				outcome = "crashed"
				panic(msg) // the client does not recover a panicking handler
			default:
				logf("unknown step %s", raw)
			}
		}
		complete(ctx, jc, id, job, "{}")
	}
	b := client.NewJobWorker().JobType(c.JobType).Handler(handler)
	if o.WorkerName != nil {
		b = b.Name(*o.WorkerName)
	}
	if o.MaxJobsActive != nil {
		b = b.MaxJobsActive(*o.MaxJobsActive)
	}
	if o.Concurrency != nil {
		b = b.Concurrency(*o.Concurrency)
	}
	if o.JobTimeoutMs != nil {
		b = b.Timeout(time.Duration(*o.JobTimeoutMs) * time.Millisecond)
	}
	if o.RequestTimeoutMs != nil {
		b = b.RequestTimeout(time.Duration(*o.RequestTimeoutMs) * time.Millisecond)
	}
	if o.PollIntervalMs != nil {
		b = b.PollInterval(time.Duration(*o.PollIntervalMs) * time.Millisecond)
	}
	if o.StreamEnabled != nil {
		b = b.StreamEnabled(*o.StreamEnabled)
	}
	if o.StreamTimeoutMs != nil {
		b = b.StreamRequestTimeout(time.Duration(*o.StreamTimeoutMs) * time.Millisecond)
	}
	if len(o.FetchVariables) > 0 {
		b = b.FetchVariables(o.FetchVariables...)
	}
	if o.AutoExtend != nil && *o.AutoExtend {
		logf("autoExtend: the client has no automatic job-timeout extension; ignored")
	}
	w := b.Open()
	mu.Lock()
	workers[id] = &runningWorker{w: w, gate: g}
	mu.Unlock()
	emit("worker_started", map[string]any{"worker": id})
}

func complete(ctx context.Context, jc worker.JobClient, id string, job entities.Job, vars string) {
	cmd, err := jc.NewCompleteJobCommand().JobKey(job.GetKey()).VariablesFromString(vars)
	if err == nil {
		_, err = cmd.Send(ctx)
	}
	if err != nil {
		reportErr(id, err)
	}
}

// stopWorker closes the worker the client's way: Close() then AwaitClose(). The client
// takes no timeout (timeoutMs is not expressible); worker_closed is written when it returns.
func stopWorker(id string) {
	mu.Lock()
	rw := workers[id]
	delete(workers, id)
	mu.Unlock()
	if rw == nil {
		emit("error", map[string]any{"worker": id, "message": "unknown worker " + id})
		return
	}
	t0 := time.Now()
	rw.w.Close()
	rw.w.AwaitClose()
	emit("worker_closed", map[string]any{"worker": id, "durationMs": time.Since(t0).Milliseconds()})
}

func closeAll() {
	mu.Lock()
	ids := make([]string, 0, len(workers))
	for id := range workers {
		ids = append(ids, id)
	}
	mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func(id string) { defer wg.Done(); stopWorker(id) }(id)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		logf("close: workers still busy after 5 s")
	}
	_ = client.Close()
}

func main() {
	var err error
	client, err = zbc.NewClient(&zbc.ClientConfig{}) // ZEEBE_* from the environment, as a user's process would
	if err != nil {
		logf("client: %v", err)
		emit("error", map[string]any{"message": err.Error()})
		os.Exit(1)
	}
	emit("ready", map[string]any{"sdk": "official-go", "version": version})
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var c command
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			emit("error", map[string]any{"message": "bad command: " + err.Error()})
			continue
		}
		switch c.Cmd {
		case "start_worker":
			startWorker(c)
		case "stop_worker":
			go stopWorker(c.ID)
		case "release":
			mu.Lock()
			rw := workers[c.ID]
			mu.Unlock()
			n := 0
			if rw != nil {
				n = rw.gate.release(c.Count)
			}
			emit("released", map[string]any{"worker": c.ID, "count": n})
		case "exit":
			closeAll()
			os.Exit(0)
		default:
			emit("error", map[string]any{"message": "unknown command " + c.Cmd})
		}
	}
	closeAll()
	os.Exit(0)
}
