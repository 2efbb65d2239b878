package jobwiretest_test

import (
	"testing"

	"github.com/jobwire/jobwire/sdk-go/jobwiretest"
)

func TestMain(m *testing.M) { jobwiretest.Main(m) }
