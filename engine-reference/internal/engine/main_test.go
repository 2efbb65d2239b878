package engine

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
)

// TestMain doubles as a child engine process for crash tests: with
// JOBWIRE_TEST_CHILD_DIR set it runs an engine on that data dir until stdin
// closes (or it is killed).
func TestMain(m *testing.M) {
	if dir := os.Getenv("JOBWIRE_TEST_CHILD_DIR"); dir != "" {
		if n, err := strconv.ParseInt(os.Getenv("JOBWIRE_TEST_SNAPSHOT_EVERY"), 10, 64); err == nil {
			partition.SnapshotEvery = n
			partition.SnapshotLogRatio = 1 << 40 // every n records, however large the snapshot
		}
		if os.Getenv("JOBWIRE_TEST_RESET_SNAPSHOT") == "0" {
			partition.ResetSnapshot = false // recover from the reset record itself
		}
		// The crash tests list every instance and job they were
		// acknowledged through the admin API: keep all of them.
		e, err := Start(Config{DataDir: dir, Partitions: 3, History: 1_000_000})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("jobwire-engine dev listening on %s\n", e.Addr())
		_, _ = io.Copy(io.Discard, os.Stdin)
		e.Close()
		os.Exit(0)
	}
	// In-process engines check after every batch that their results
	// records alone rebuild the live state (partition.VerifyResults).
	partition.VerifyResults = os.Getenv("JOBWIRE_VERIFY_RESULTS") != "0"
	os.Exit(m.Run())
}

// childSnapshotEvery is the snapshot interval of child engines: small, so
// crash tests also crash during and right after snapshots and recover from
// snapshot + log tail.
var childSnapshotEvery int64 = 150

type child struct {
	cmd   *exec.Cmd
	addr  string
	stdin io.WriteCloser
}

var listenRE = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

// startChild starts this test binary as an engine process; it is killed
// when the test ends, whatever happens.
func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "JOBWIRE_TEST_CHILD_DIR="+dir, "JOBWIRE_TEST_SNAPSHOT_EVERY="+strconv.FormatInt(childSnapshotEvery, 10))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { c.kill() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
	}()
	select {
	case c.addr = <-lines:
	case <-time.After(15 * time.Second):
		t.Fatal("child engine did not start")
	}
	return c
}

func (c *child) kill() {
	if c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Kill() // SIGKILL: no chance to flush anything
		_ = c.cmd.Wait()
	}
}

var _ = strconv.Itoa
