package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/cluster"
	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
)

// waitForStop blocks until SIGINT/SIGTERM or, with stdinClose, until stdin
// closes (the parent went away).
func waitForStop(stop chan os.Signal, stdinClose bool) {
	stdinGone := make(chan struct{})
	if stdinClose {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			close(stdinGone)
		}()
	}
	select {
	case <-stop:
	case <-stdinGone:
	}
}

// Shutdown limits: a process exits within these bounds even if something
// inside it is stuck (no orphans, ever). engine.Close needs at most ~2.5 s
// (1.5 s graceful gRPC stop, then Stop, then 1 s for the partitions); the
// supervisor's children get 4 s before SIGKILL.
const (
	processShutdownLimit = 3500 * time.Millisecond
	clusterShutdownLimit = 10 * time.Second
)

// shutdown runs closeFn, but returns after limit (or on a second signal)
// even if it has not finished: the stuck goroutines are printed to stderr
// and the exit code is 1.
func shutdown(stop <-chan os.Signal, name string, limit time.Duration, closeFn func()) int {
	done := make(chan struct{})
	go func() { closeFn(); close(done) }()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
		return 0
	case sig := <-stop:
		fmt.Fprintf(os.Stderr, "jobwire-engine %s: second %v during shutdown; exiting now\n", name, sig)
	case <-t.C:
		fmt.Fprintf(os.Stderr, "jobwire-engine %s: shutdown did not finish within %v; exiting anyway. Goroutines:\n%s\n",
			name, limit, allStacks())
	}
	return 1
}

func allStacks() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

func parseIDs(s string) ([]int32, error) {
	var out []int32
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("bad partition id %q", f)
		}
		out = append(out, int32(n))
	}
	return out, nil
}

// broker runs one broker process: `jobwire-engine broker --node-id 0
// --port 0 --data-dir D --partition-count 6 --cluster-size 3` leads the
// partitions p with (p-1) % 3 == 0; `--partitions 1,4` names them instead.
func broker(args []string) int {
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	node := fs.Int("node-id", 0, "broker node id")
	port := fs.Int("port", 0, "port on 127.0.0.1 for gateways (0 = pick a free port)")
	dataDir := fs.String("data-dir", "", "data directory (required; a restart on it recovers the partitions)")
	count := fs.Int("partition-count", 3, "partitions in the whole cluster")
	size := fs.Int("cluster-size", 1, "number of brokers (partition p is led by broker (p-1) % size)")
	partsOf := fs.String("partitions", "", "partitions this broker leads, e.g. 1,4 (default: from --cluster-size)")
	stdinClose := fs.Bool("exit-on-stdin-close", false, "exit when stdin is closed")
	noSync := fs.Bool("no-fsync", false, "skip fsync (not crash-safe)")
	history := fs.Int("history", 0, "finished instances and jobs each partition keeps for the admin API (default 1000)")
	snapEvery := fs.Int64("snapshot-every", partition.SnapshotEvery, "log records after which a partition writes a snapshot and compacts its log (and at least an eighth of the last snapshot's size in log bytes); bounds crash-recovery replay")
	pushOrder := pushOrderFlag(fs)
	link := linkTLSFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := link.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "jobwire-engine broker: %v\n", err)
		return 2
	}
	if *snapEvery > 0 {
		partition.SnapshotEvery = *snapEvery
	}
	if !pushOrder() {
		return 2
	}
	ids := cluster.PartitionsOf(int32(*node), int32(*size), int32(*count))
	if *partsOf != "" {
		var err error
		if ids, err = parseIDs(*partsOf); err != nil {
			fmt.Fprintf(os.Stderr, "jobwire-engine broker: %v\n", err)
			return 2
		}
	}
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	reserveSyncProcs(len(ids), *noSync)
	b, err := cluster.StartBroker(cluster.BrokerConfig{NodeID: int32(*node), Port: *port, DataDir: *dataDir,
		PartitionIDs: ids, PartitionCount: int32(*count), NoSync: *noSync, History: *history, TLS: link})
	if err != nil {
		fmt.Fprintf(os.Stderr, "jobwire-engine broker: %v\n", err)
		return 1
	}
	fmt.Printf("jobwire-engine broker %d listening on %s (partitions %s of %d, data %s)\n", *node, b.Addr(),
		joinIDs(b.Partitions()), *count, *dataDir)
	waitForStop(stop, *stdinClose)
	return shutdown(stop, "broker", processShutdownLimit, b.Close)
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}

// gatewayCmd runs one gateway process over broker processes.
func gatewayCmd(args []string) int {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	port := fs.Int("port", 26500, "gateway port on 127.0.0.1 (0 = pick a free port)")
	brokers := fs.String("brokers", "", "broker addresses host:port,... (required)")
	id := fs.String("id", "", "gateway id (default gateway-<pid>)")
	wait := fs.Duration("broker-wait", 30*time.Second, "how long to wait for a first broker")
	security := securityFlags(fs)
	stdinClose := fs.Bool("exit-on-stdin-close", false, "exit when stdin is closed")
	uiPort := fs.Int("ui-port", -1, "serve the live view web page on this port of 127.0.0.1 (0 = a free port; -1 = off)")
	link := linkTLSFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := link.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "jobwire-engine gateway: %v\n", err)
		return 2
	}
	addrs := strings.Split(*brokers, ",")
	if *brokers == "" {
		fmt.Fprintln(os.Stderr, "jobwire-engine gateway: --brokers is required")
		return 2
	}
	if *id == "" {
		*id = fmt.Sprintf("gateway-%d", os.Getpid())
	}
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	cfg := engine.Config{Port: *port, UI: *uiPort >= 0, UIPort: max(*uiPort, 0)}
	security(&cfg)
	e, err := engine.StartGateway(cfg,
		func(gw *gateway.Gateway) (gateway.Broker, io.Closer, error) {
			r, err := cluster.NewRemote(gw, *id, addrs, *wait, link)
			return r, r, err
		})
	if err != nil {
		fmt.Fprintf(os.Stderr, "jobwire-engine gateway: %v\n", err)
		return 1
	}
	if e.Auth != nil && e.Auth.URL != "" {
		fmt.Printf("oauth token endpoint %s\n", e.Auth.URL)
	}
	fmt.Printf("jobwire-engine gateway listening on %s (%d partitions, brokers %s)\n", e.Addr(), e.Partitions(), *brokers)
	if e.UI != nil {
		fmt.Printf("jobwire-engine live view %s\n", e.UI.URL())
	}
	waitForStop(stop, *stdinClose)
	return shutdown(stop, "gateway", processShutdownLimit, e.Close)
}

// linkTLSFlags registers the gateway↔broker mutual-TLS flags (the cluster
// supervisor generates the files and passes them to every child).
func linkTLSFlags(fs *flag.FlagSet) *cluster.LinkTLS {
	l := &cluster.LinkTLS{}
	fs.StringVar(&l.CAFile, "cluster-ca", "", "gateway<->broker mutual TLS: the cluster CA (PEM)")
	fs.StringVar(&l.CertFile, "cluster-cert", "", "gateway<->broker mutual TLS: this node's certificate (PEM)")
	fs.StringVar(&l.KeyFile, "cluster-key", "", "gateway<->broker mutual TLS: this node's private key (PEM)")
	return l
}
