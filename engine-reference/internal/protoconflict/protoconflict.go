// Package protoconflict lets the engine and the jobwire Go SDK live in one
// binary (embedded.Start beside jobwire.NewClient, the Go test kit). Both
// carry generated code for the same .proto files (gateway.proto,
// jobwire/stream/v1/stream.proto) and register them in protobuf's global
// registry, which panics on the second registration by default.
//
// This package imports only os, so Go initializes it before the protobuf
// runtime and every generated package (at each step Go initializes the first
// package, by import path, whose imports are initialized; this path sorts
// before google.golang.org/...). Its init sets
// GOLANG_PROTOBUF_REGISTRATION_CONFLICT=ignore unless the environment already
// sets a policy; Restore (embedded.Start calls it, after every package's
// init) puts the environment back. The duplicate descriptors are copies of
// the same files; each generated package keeps using its own types.
package protoconflict

import "os"

const env = "GOLANG_PROTOBUF_REGISTRATION_CONFLICT"

var set bool

func init() {
	if _, ok := os.LookupEnv(env); !ok {
		set = os.Setenv(env, "ignore") == nil
	}
}

// Restore removes the setting init made (a no-op when the environment set a
// policy itself, or on a second call).
func Restore() {
	if set {
		_ = os.Unsetenv(env)
		set = false
	}
}
