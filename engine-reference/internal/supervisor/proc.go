package supervisor

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one supervised child process (a broker or a gateway).
type proc struct {
	name string
	args func(port int) []string
	out  io.Writer

	mu    sync.Mutex
	port  int // fixed after the first start, so restarts reuse it
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
}

var listenRE = regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`)

// start launches the child and waits for its listening line. A child with no
// port yet gets one outside the kernel's ephemeral range (stablePort): its
// restarts must bind the same port again, and a port from the ephemeral range
// can be taken meanwhile as the local end of any outgoing connection on the
// machine (seen in CI: a broker killed for 1 s could not restart, "bind:
// address already in use"). If another process binds the chosen port between
// the check and the child's bind, another port is tried.
func (p *proc) start(bin string, timeout time.Duration) error {
	for attempt := 1; ; attempt++ {
		chosen, err := p.startOnce(bin, timeout)
		if err == nil || !chosen || attempt == 3 {
			return err
		}
	}
}

func (p *proc) startOnce(bin string, timeout time.Duration) (chosen bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return false, fmt.Errorf("%s is already running", p.name)
	}
	if p.port == 0 {
		if sp := stablePort(); sp > 0 {
			p.port, chosen = sp, true
			defer func() {
				if err != nil {
					p.port = 0
				}
			}()
		}
	}
	return chosen, p.startLocked(bin, timeout)
}

func (p *proc) startLocked(bin string, timeout time.Duration) error {
	cmd := exec.Command(bin, p.args(p.port)...)
	cmd.SysProcAttr = childAttr()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(p.out, line)
			if m := listenRE.FindStringSubmatch(line); m != nil {
				port, _ := strconv.Atoi(m[1])
				select {
				case ready <- port:
				default:
				}
			}
		}
	}()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case port := <-ready:
		p.port = port
	case <-done:
		return fmt.Errorf("%s exited during start", p.name)
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not start within %v", p.name, timeout)
	}
	p.cmd, p.stdin, p.done = cmd, stdin, done
	go func() {
		<-done
		p.mu.Lock()
		if p.cmd == cmd { // ended without stop: a crash
			p.cmd = nil
			fmt.Fprintf(os.Stderr, "jobwire-engine cluster: %s exited unexpectedly (%v)\n", p.name, cmd.ProcessState)
		}
		p.mu.Unlock()
	}()
	return nil
}

// childStopGrace is how long a child gets after SIGTERM before SIGKILL
// (children bound their own shutdown to 3.5 s).
const childStopGrace = 4 * time.Second

// stop ends the child: SIGTERM (then SIGKILL after childStopGrace) or SIGKILL.
func (p *proc) stop(graceful bool) {
	p.mu.Lock()
	cmd, stdin, done := p.cmd, p.stdin, p.done
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	if graceful {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(childStopGrace):
			_ = cmd.Process.Kill()
			<-done
		}
	} else {
		_ = cmd.Process.Kill()
		<-done
	}
	stdin.Close()
}

func (p *proc) running() (bool, int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return false, 0, p.port
	}
	return true, p.cmd.Process.Pid, p.port
}

func (p *proc) addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("127.0.0.1:%d", p.port)
}

// stablePort picks a free port on 127.0.0.1 below the kernel's ephemeral
// range (net.ipv4.ip_local_port_range, 32768-60999 by default), so no
// outgoing connection can take it while its child is down for a restart.
// 0 when the range cannot be read (then the child picks a port itself, as
// before) or no free port was found.
func stablePort() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil || lo <= 12000 {
		return 0
	}
	for i := 0; i < 50; i++ {
		port := lo - 10000 + rand.Intn(10000) // [lo-10000, lo)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		l.Close()
		return port
	}
	return 0
}
