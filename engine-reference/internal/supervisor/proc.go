package supervisor

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
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

// start launches the child and waits for its listening line.
func (p *proc) start(bin string, timeout time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("%s is already running", p.name)
	}
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
