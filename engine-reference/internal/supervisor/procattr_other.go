//go:build !linux

package supervisor

import "syscall"

func childAttr() *syscall.SysProcAttr { return nil }
