// Package embedded runs the jobwire reference engine inside a Go process: the
// same engine as `jobwire-engine dev` (a gateway speaking the Zeebe gateway
// gRPC API, its partitions, its admin API), started in milliseconds and
// stopped with Close. It is meant for development and tests:
//
//	eng, err := embedded.Start(embedded.Options{})
//	if err != nil { ... }
//	defer eng.Close()
//	client, err := jobwire.NewClient(ctx, jobwire.WithAddress(eng.Address()), jobwire.WithPlaintext())
//
// The engine listens on 127.0.0.1 only. Its data lives in a fresh temporary
// directory removed by Close, unless Options.DataDir names one (then a later
// Start on the same directory finds the deployments and instances again).
//
// For tests, the engine's admin API is there as methods too: engine time
// (Clock, AdvanceClock, SetClock), Reset, inspection (Jobs, Instances,
// Incidents) and faults (RejectNext, DropStreams, ClearFaults). The Go test
// kit, github.com/jobwire/jobwire/sdk-go/jobwiretest, is built on them.
//
// The engine and the SDK register the same gateway protobuf files; this
// package lets both into one binary (the second registration is ignored
// instead of panicking while the program initializes).
//
// This package is the engine's stable Go API; everything under internal/ may
// change between versions.
package embedded

import (
	"errors"
	"log/slog"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/protoconflict"
)

// Options configure an embedded engine. The zero value is a sensible default.
type Options struct {
	// Port on 127.0.0.1; 0 picks a free one (see Engine.Address).
	Port int
	// DataDir keeps the engine's data; "" uses a fresh temporary directory
	// that Close removes.
	DataDir string
	// Partitions: default 3, as `jobwire-engine dev`. The number is fixed for
	// a data directory once it was created.
	Partitions int
	// Durable makes every commit wait for fsync, as `jobwire-engine dev` does.
	// Off by default: an embedded engine is for development and tests, where
	// a crash loses nothing that matters and fsync only costs time.
	Durable bool
	// NoAdmin serves no admin API (its calls get UNIMPLEMENTED, as on a
	// Zeebe gateway).
	NoAdmin bool
	// Logger receives the engine's warnings and errors; nil writes warnings
	// and errors to stderr.
	Logger *slog.Logger
}

// Engine is a running embedded engine.
type Engine struct {
	e       *engine.Engine
	noAdmin bool
}

// ErrClosed is returned by Address after Close.
var ErrClosed = errors.New("jobwire embedded engine: closed")

// Start replays the data directory (if any) and serves the gateway API on
// 127.0.0.1. It returns once the engine accepts calls.
func Start(opts Options) (*Engine, error) {
	// every package of the program registered its protobuf files by now: the
	// conflict policy that let the SDK's copies register beside the engine's
	// goes back to protobuf's default
	protoconflict.Restore()
	e, err := engine.Start(engine.Config{
		Port: opts.Port, DataDir: opts.DataDir, Partitions: opts.Partitions, NoSync: !opts.Durable,
		NoAdmin: opts.NoAdmin, Logger: opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	return &Engine{e: e, noAdmin: opts.NoAdmin}, nil
}

// Address is the gateway's address, "127.0.0.1:<port>", for a client's
// address option (plaintext).
func (e *Engine) Address() string { return e.e.Addr() }

// Port is the gateway's port on 127.0.0.1.
func (e *Engine) Port() int { return e.e.Port() }

// DataDir is the engine's data directory.
func (e *Engine) DataDir() string { return e.e.DataDir() }

// Close stops the engine: open calls end, pushed jobs not completed return to
// the engine's data, and a temporary data directory is removed. Calling it
// again does nothing.
func (e *Engine) Close() error {
	e.e.Close()
	return nil
}
