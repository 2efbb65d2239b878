module example.com/order-worker

go 1.24.0

require (
	github.com/jobwire/jobwire/sdk-go v0.1.0
	github.com/jobwire/jobwire/sdk-go/jobwiretest v0.1.0
)

require (
	github.com/go-jose/go-jose/v4 v4.1.9 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/jobwire/jobwire/engine-reference v0.1.0 // indirect
	go.opentelemetry.io/auto/sdk v1.1.0 // indirect
	go.opentelemetry.io/otel v1.37.0 // indirect
	go.opentelemetry.io/otel/metric v1.37.0 // indirect
	go.opentelemetry.io/otel/trace v1.37.0 // indirect
	golang.org/x/net v0.42.0 // indirect
	golang.org/x/sys v0.34.0 // indirect
	golang.org/x/text v0.27.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250804133106-a7a43d27e69b // indirect
	google.golang.org/grpc v1.76.0 // indirect
	google.golang.org/protobuf v1.36.10 // indirect
)

// The SDK from this repository. In your own project, drop this line and
// `go get github.com/jobwire/jobwire/sdk-go@latest` instead.
replace github.com/jobwire/jobwire/sdk-go => ../../../sdk-go

// The test kit (main_test.go, handlers_test.go) and the engine it runs, from
// this repository too; elsewhere `go get github.com/jobwire/jobwire/sdk-go/jobwiretest@latest`.
replace (
	github.com/jobwire/jobwire/engine-reference => ../../../engine-reference
	github.com/jobwire/jobwire/sdk-go/jobwiretest => ../../../sdk-go/jobwiretest
)
