// Package protoconflict lets the SDK's and the engine's generated gateway
// protobuf packages live in one test binary. Both register the Zeebe gateway
// protocol's descriptors (gateway.proto, gateway_protocol.*) in the global
// protobuf registry, which panics on the second registration by default. This
// package has no dependency on protobuf, so Go initializes it before the
// protobuf runtime and both generated packages (Go initializes, at each
// step, the first package by import path whose imports are initialized);
// its init sets GOLANG_PROTOBUF_REGISTRATION_CONFLICT=ignore unless the
// environment sets a policy, and Restore (called from jobwiretest's init,
// after every generated package registered) puts the environment back. The
// duplicate descriptors are identical copies of the same .proto; the
// generated code of each package keeps using its own.
package protoconflict

import "os"

const env = "GOLANG_PROTOBUF_REGISTRATION_CONFLICT"

var set bool

func init() {
	if _, ok := os.LookupEnv(env); !ok {
		set = os.Setenv(env, "ignore") == nil
	}
}

// Restore removes the setting init made.
func Restore() {
	if set {
		_ = os.Unsetenv(env)
		set = false
	}
}
