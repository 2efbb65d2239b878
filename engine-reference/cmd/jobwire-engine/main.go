// Command jobwire-engine is jobwire's reference engine: a job engine behind
// the Zeebe gateway gRPC API.
//
//	jobwire-engine dev   [--port 26500] [--data-dir DIR] [--partitions 3] ...
//	jobwire-engine bench [--instances N] [--partitions 3] ...
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
)

// version is set at release builds (-ldflags "-X main.version=0.1.0").
var version = "dev"

func usage() {
	fmt.Fprintln(os.Stderr, `usage: jobwire-engine <command> [flags]

commands:
  dev     run the embedded cluster (gateway + partitions) on 127.0.0.1
  bench   measure end-to-end throughput and latency (durable, in-process worker)
  storage-bench  restart time and RSS after 10k/100k/1M finished instances (make bench-storage)
  cluster start and supervise gateway and broker processes (fault injection via admin)
  broker  run one broker process (partitions behind jobwire.cluster.v1)
  gateway run one gateway process over broker processes
  version print the version

run 'jobwire-engine <command> -h' for the flags of a command`)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	switch os.Args[1] {
	case "dev":
		os.Exit(dev(os.Args[2:]))
	case "bench":
		os.Exit(bench(os.Args[2:]))
	case "storage-bench":
		os.Exit(storageBench(os.Args[2:]))
	case "broker":
		os.Exit(broker(os.Args[2:]))
	case "gateway":
		os.Exit(gatewayCmd(os.Args[2:]))
	case "cluster":
		os.Exit(clusterCmd(os.Args[2:]))
	case "version", "--version":
		fmt.Println("jobwire-engine", version)
	case "-h", "--help", "help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "jobwire-engine: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
}

func dev(args []string) int {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	port := fs.Int("port", 26500, "gateway port on 127.0.0.1 (0 = pick a free port)")
	dataDir := fs.String("data-dir", "", "data directory (default: a fresh temp dir, removed on exit)")
	parts := fs.Int("partitions", 3, "number of partitions")
	security := securityFlags(fs)
	stdinClose := fs.Bool("exit-on-stdin-close", false, "exit when stdin is closed (for test harnesses)")
	noSync := fs.Bool("no-fsync", false, "skip fsync (faster, not crash-safe; for throwaway runs)")
	noLongPoll := fs.Bool("no-long-polling", false, "answer every ActivateJobs at once (as Zeebe with long polling disabled)")
	history := fs.Int("history", 0, "finished instances and jobs each partition keeps for the admin API (default 1000; older ones are only counted)")
	snapEvery := fs.Int64("snapshot-every", partition.SnapshotEvery, "log records after which a partition writes a snapshot and compacts its log (and at least an eighth of the last snapshot's size in log bytes); bounds crash-recovery replay")
	pushOrder := pushOrderFlag(fs)
	uiPort := fs.Int("ui-port", 0, "port of the live view web page on 127.0.0.1 (0 = pick a free port)")
	noUI := fs.Bool("no-ui", false, "do not serve the live view web page")
	noAdmin := fs.Bool("no-admin", false, "serve no admin API (its calls get UNIMPLEMENTED, as on a Zeebe gateway) and no live view")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *snapEvery > 0 {
		partition.SnapshotEvery = *snapEvery
	}
	if !pushOrder() {
		return 2
	}
	// Signals are caught before the listening line is printed, so a harness
	// that stops the engine right after startup gets a clean exit.
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	cfg := engine.Config{Port: *port, DataDir: *dataDir, Partitions: *parts, NoSync: *noSync, NoLongPolling: *noLongPoll,
		History: *history, UI: !*noUI && !*noAdmin, UIPort: *uiPort, NoAdmin: *noAdmin}
	security(&cfg)
	reserveSyncProcs(*parts, *noSync)
	e, err := engine.Start(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "jobwire-engine: %v\n", err)
		return 1
	}
	if e.Auth != nil && e.Auth.URL != "" {
		fmt.Printf("oauth token endpoint %s\n", e.Auth.URL)
	}
	fmt.Printf("jobwire-engine dev listening on %s (%d partitions, data %s)\n", e.Addr(), e.Partitions(), e.DataDir())
	if e.UI != nil {
		fmt.Printf("jobwire-engine live view %s\n", e.UI.URL())
	}
	waitForStop(stop, *stdinClose)
	return shutdown(stop, "dev", processShutdownLimit, e.Close)
}

// pushOrderFlag registers --push-order; the returned func applies it after
// parsing and reports false (with a message) for an unknown value.
func pushOrderFlag(fs *flag.FlagSet) func() bool {
	v := fs.String("push-order", "oldest", "which job a ready push stream gets when a job becomes activatable: "+
		"\"oldest\" (the oldest activatable job of its type, so jobs yielded in a burst get their turn) or "+
		"\"new\" (only the new job, as Zeebe: yielded jobs wait for a poll)")
	return func() bool {
		switch *v {
		case "oldest":
			partition.PushOldestFirst = true
		case "new":
			partition.PushOldestFirst = false
		default:
			fmt.Fprintf(os.Stderr, "jobwire-engine: --push-order must be \"oldest\" or \"new\", not %q\n", *v)
			return false
		}
		return true
	}
}
