module github.com/jobwire/jobwire/tools/release/gomodzip

go 1.24.0

require golang.org/x/mod v0.25.0
