package partition

import (
	"os"
	"testing"
)

// Every test of this package runs with VerifyResults: after each batch the
// state rebuilt from the results records alone must equal the live state.
func TestMain(m *testing.M) {
	VerifyResults = os.Getenv("JOBWIRE_VERIFY_RESULTS") != "0"
	os.Exit(m.Run())
}

// withoutVerifyResults turns VerifyResults off for partitions opened until
// the returned function runs (tests whose state is too large to compare
// after every batch).
func withoutVerifyResults() func() {
	old := VerifyResults
	VerifyResults = false
	return func() { VerifyResults = old }
}
