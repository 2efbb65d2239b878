package supervisor

import "syscall"

// childAttr kills a child when the supervisor dies (no orphans), even by
// SIGKILL; stdin closing (--exit-on-stdin-close) is the second line.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
