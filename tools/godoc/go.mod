module github.com/jobwire/jobwire/tools/godoc

go 1.24.0
