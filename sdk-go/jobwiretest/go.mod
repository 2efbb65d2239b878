module github.com/jobwire/jobwire/sdk-go/jobwiretest

go 1.24.0

require (
	github.com/jobwire/jobwire/engine-reference v0.1.0
	github.com/jobwire/jobwire/sdk-go v0.1.0
	google.golang.org/grpc v1.76.0
	google.golang.org/protobuf v1.36.10
)

require (
	github.com/go-jose/go-jose/v4 v4.1.9 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	go.opentelemetry.io/auto/sdk v1.1.0 // indirect
	go.opentelemetry.io/otel v1.37.0 // indirect
	go.opentelemetry.io/otel/metric v1.37.0 // indirect
	go.opentelemetry.io/otel/trace v1.37.0 // indirect
	golang.org/x/net v0.42.0 // indirect
	golang.org/x/sys v0.34.0 // indirect
	golang.org/x/text v0.27.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250804133106-a7a43d27e69b // indirect
)

// In this repository the kit builds against the SDK and the engine next to
// it (go.work does the same); users get the released versions, which the
// release ships together (RELEASING.md).
replace (
	github.com/jobwire/jobwire/engine-reference => ../../engine-reference
	github.com/jobwire/jobwire/sdk-go => ..
)
