module github.com/jobwire/jobwire/sdk-go/jobwiretest

go 1.24.0

require (
	github.com/jobwire/jobwire/engine-reference v0.1.0
	github.com/jobwire/jobwire/sdk-go v0.1.0
)

// In this repository the kit builds against the SDK and the engine next to
// it (go.work does the same); users get the released versions, which the
// release ships together (RELEASING.md).
replace (
	github.com/jobwire/jobwire/engine-reference => ../../engine-reference
	github.com/jobwire/jobwire/sdk-go => ..
)
