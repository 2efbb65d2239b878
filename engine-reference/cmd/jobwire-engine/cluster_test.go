package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var readyRE = regexp.MustCompile(`^jobwire-engine cluster ready: gateways (127\.0\.0\.1:\d+),(127\.0\.0\.1:\d+) admin (127\.0\.0\.1:\d+) \(.*started in (\d+) ms\)$`)

// startCluster runs `jobwire-engine cluster` and returns the process, the
// ready line's fields and the child pids.
func startCluster(t *testing.T) (*exec.Cmd, []string, []int) {
	t.Helper()
	cmd := exec.Command(bin, "cluster", "--gateways", "2", "--brokers", "3", "--partitions", "6", "--exit-on-stdin-close")
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	got := make(chan []string, 1)
	before := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := readyRE.FindStringSubmatch(sc.Text()); m != nil {
				before <- lines
				got <- m
			}
			lines = append(lines, sc.Text())
		}
	}()
	var m, lines []string
	select {
	case lines = <-before:
		m = <-got
	case <-time.After(15 * time.Second):
		t.Fatal("no ready line")
	}
	var components, views int
	for _, l := range lines {
		switch {
		case strings.Contains(l, " listening on "):
			components++
		case strings.HasPrefix(l, "jobwire-engine live view http://127.0.0.1:"):
			views++ // the first gateway's web page
		}
	}
	if components != 5 || views != 1 || len(lines) != 6 || !strings.Contains(strings.Join(lines, "\n"), "broker 2 listening") {
		t.Fatalf("want one line per component and the live view's address before ready, got %q", lines)
	}
	t.Logf("cluster ready after %s ms", m[4])
	conn, err := grpc.NewClient(m[3], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl, err := apb.NewAdminServiceClient(conn).GetCluster(ctx, &apb.GetClusterRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, g := range cl.Gateways {
		pids = append(pids, int(g.Pid))
	}
	for _, b := range cl.Brokers {
		pids = append(pids, int(b.Pid))
	}
	if len(pids) != 5 || cl.Gateways[1].Address != m[2] {
		t.Fatalf("cluster %v", cl)
	}
	return cmd, m, pids
}

func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("child %d outlived the supervisor", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// SIGTERM stops every child; SIGKILL of the supervisor kills them too
// (Pdeathsig), so no orphan survives either way.
func TestClusterNoOrphans(t *testing.T) {
	cmd, _, pids := startCluster(t)
	cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, cmd)
	waitGone(t, pids)

	cmd, _, pids = startCluster(t)
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, pids)
}
