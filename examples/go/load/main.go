// load is the driver behind `make run` (examples/run.sh): it deploys
// order-fulfilment.bpmn, starts process instances with the Go SDK's public
// client (CreateProcessInstanceWithResult), checks every result, shows one
// live status line per SDK (read from the workers' JSON stats lines) and ends
// with a summary table. Exit status 0 means: every instance completed with
// the expected variables and every SDK handled jobs.
//
//	go run . -bpmn ../../bpmn/order-fulfilment.bpmn -instances 2000 \
//	    -worker go=payment,shipping=/tmp/go.out -worker node=inventory,notify-customer=/tmp/node.out
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jobwire/jobwire/sdk-go"
)

const declinedCard = "4000000000000002"

type workerFlag []string

func (w *workerFlag) String() string     { return strings.Join(*w, " ") }
func (w *workerFlag) Set(v string) error { *w = append(*w, v); return nil }

// workerStats is one SDK's order-worker as seen through its stats lines.
type workerStats struct {
	name, types, path string
	off               int64
	partial           string
	last              map[string]any
}

func (w *workerStats) poll() {
	f, err := os.Open(w.path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(w.off, io.SeekStart); err != nil {
		return
	}
	b, _ := io.ReadAll(f)
	w.off += int64(len(b))
	data := w.partial + string(b)
	lines := strings.Split(data, "\n")
	w.partial = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, `{"`) || !strings.Contains(l, `"stats"`) {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			w.last = m
		}
	}
}

func (w *workerStats) num(k string) float64 {
	if v, ok := w.last[k].(float64); ok {
		return v
	}
	return 0
}

type driver struct {
	client                 *jobwire.Client
	target, concurrency    int
	next                   atomic.Int64
	started, completed     atomic.Int64
	declined, express      atomic.Int64
	wrong, failures, retry atomic.Int64
	expectedJobs           atomic.Int64
	mu                     sync.Mutex
	lat                    []float64 // end-to-end ms, all instances
	window                 []float64
	firstErr               atomic.Value
}

func (d *driver) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range d.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := d.next.Add(1)
				if d.target > 0 && i > int64(d.target) {
					return
				}
				d.one(ctx, i)
			}
		}()
	}
	wg.Wait()
}

func (d *driver) one(ctx context.Context, i int64) {
	amount := float64(10 + rand.IntN(190))
	card := "4242424242424242"
	if i%20 == 7 { // 5 % of the orders are declined
		card = declinedCard
	}
	vars := map[string]any{"orderId": fmt.Sprintf("order-%d", i), "amount": amount, "card": card,
		"handedOffAt": float64(time.Now().UnixMicro()) / 1000}
	d.started.Add(1)
	for attempt := 0; ; attempt++ {
		t0 := time.Now()
		res, err := d.client.CreateProcessInstanceWithResult(ctx, jobwire.CreateInstance{
			BPMNProcessID: "order-fulfilment", Version: -1, Variables: vars}, 60*time.Second)
		var bp *jobwire.BackpressureError
		if errors.As(err, &bp) && attempt < 50 && ctx.Err() == nil {
			d.retry.Add(1)
			time.Sleep(time.Duration(20*(attempt+1)) * time.Millisecond)
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				d.failures.Add(1)
				d.firstErr.CompareAndSwap(nil, err.Error())
			}
			return
		}
		ms := float64(time.Since(t0).Microseconds()) / 1000
		var out struct {
			Paid           bool   `json:"paid"`
			ShippingMethod string `json:"shippingMethod"`
			Notified       string `json:"notified"`
		}
		ok := res.Decode(&out) == nil
		if card == declinedCard {
			// The error's variables (declineReason) stay on the error event's
			// scope, as in Zeebe: without output mappings they do not reach
			// the instance, so the result shows the path taken, not the reason.
			ok = ok && !out.Paid && out.Notified == "payment-declined"
			d.declined.Add(1)
			d.expectedJobs.Add(2)
		} else {
			want := "standard"
			if amount > 100 {
				want = "express"
				d.express.Add(1)
			}
			ok = ok && out.Paid && out.ShippingMethod == want && out.Notified == "order-confirmed"
			d.expectedJobs.Add(4)
		}
		if !ok {
			d.wrong.Add(1)
			d.firstErr.CompareAndSwap(nil, "unexpected result variables: "+string(res.Variables))
		}
		d.completed.Add(1)
		d.mu.Lock()
		d.lat = append(d.lat, ms)
		d.window = append(d.window, ms)
		d.mu.Unlock()
		return
	}
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)]
}

func main() {
	bpmn := flag.String("bpmn", "../../bpmn/order-fulfilment.bpmn", "BPMN file to deploy")
	instances := flag.Int("instances", 2000, "instances to run (0 = until interrupted)")
	maxDur := flag.Duration("max-duration", 0, "stop creating instances after this long (0 = no limit)")
	concurrency := flag.Int("concurrency", 64, "instances in flight")
	plain := flag.Bool("plain", false, "plain progress lines instead of a live display")
	every := flag.Duration("progress", 2*time.Second, "interval of plain progress lines")
	summaryJSON := flag.String("summary-json", "", "write the summary as JSON to this file")
	var wflags workerFlag
	flag.Var(&wflags, "worker", "name=jobtypes=stats-file of an order-worker (repeatable)")
	flag.Parse()

	var workers []*workerStats
	for _, w := range wflags {
		parts := strings.SplitN(w, "=", 3)
		if len(parts) != 3 {
			fmt.Fprintf(os.Stderr, "load: -worker %q: want name=types=file\n", w)
			os.Exit(2)
		}
		workers = append(workers, &workerStats{name: parts[0], types: parts[1], path: parts[2]})
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := jobwire.NewClient(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	defer client.Close()
	depCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	dep, err := client.DeployFiles(depCtx, *bpmn)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load: deploy:", err)
		os.Exit(1)
	}
	fmt.Printf("deployed %s (process order-fulfilment, key %d)\n", *bpmn, dep.Processes[0].ProcessDefinitionKey)

	d := &driver{client: client, target: *instances, concurrency: *concurrency}
	runCtx := ctx
	if *maxDur > 0 {
		var c context.CancelFunc
		runCtx, c = context.WithTimeout(ctx, *maxDur)
		defer c()
	}
	t0 := time.Now()
	done := make(chan struct{})
	go func() { d.run(runCtx); close(done) }()

	ui := &display{plain: *plain, every: *every, d: d, workers: workers, t0: t0}
	ui.loop(done)
	elapsed := time.Since(t0)
	interrupted := ctx.Err() != nil
	timedOut := !interrupted && runCtx.Err() != nil

	// Every instance is done: the workers' stats catch up within a stats interval.
	want := d.expectedJobs.Load()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var got float64
		for _, w := range workers {
			w.poll()
			got += w.num("handled")
		}
		if int64(got) >= want {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	ok := summary(d, workers, elapsed, interrupted, timedOut, *summaryJSON)
	if !ok {
		os.Exit(1)
	}
}
