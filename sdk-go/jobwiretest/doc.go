// Package jobwiretest tests jobwire workers: their handlers without a
// network, and processes on a real engine running inside the test binary —
// no Docker, no separate process.
//
// Level 1, handler tests: NewJob builds a job, RunHandler runs a handler on
// it through the worker's own execution path (handler adapter, executor,
// auto-extender, outcome mapping) with an in-process gateway instead of the
// engine, and returns what the worker would have sent:
//
//	res, err := jobwiretest.RunHandler(ctx, handler,
//		jobwiretest.NewJob(jobwiretest.WithVariables(map[string]any{"orderId": 42})))
//	// res.Outcome == jobwiretest.OutcomeCompleted, res.Variables["paid"] == true
//
// Level 2, process tests: Start returns an Engine — the reference engine
// (engine-reference/embedded), started once per test binary and reset
// (every deployment, instance, job and timer dropped, engine time back to
// wall time, faults cleared) at each Start — with a connected client, and
// helpers to deploy, create instances, wait for them, stand in for workers
// and move engine time:
//
//	eng := jobwiretest.Start(t)
//	eng.Deploy("testdata/order.bpmn")
//	key := eng.CreateInstance("order", map[string]any{"orderId": 42})
//	eng.CompleteJobs("payment", map[string]any{"paid": true})
//	vars := eng.AwaitCompleted(key)
//
// Tests that call Start must not run in parallel with each other (Start
// resets the one shared engine). Call Main from TestMain to stop the engine
// and remove its data when the tests end.
//
// Use the kit with the same version of github.com/jobwire/jobwire/sdk-go:
// it runs handlers through the SDK's internals.
//
// The SDK and the engine each carry the generated code of the Zeebe gateway
// protocol, which registers the same protobuf names; the protobuf runtime
// panics on such a second registration. While the packages of a test binary
// that imports the engine initialize, the engine's embedded package sets
// GOLANG_PROTOBUF_REGISTRATION_CONFLICT=ignore (unless the environment sets
// it) and removes it again when the engine starts.
package jobwiretest
