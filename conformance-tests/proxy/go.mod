module github.com/jobwire/jobwire/conformance-tests/proxy

go 1.24

require golang.org/x/net v0.42.0

require golang.org/x/text v0.27.0 // indirect
