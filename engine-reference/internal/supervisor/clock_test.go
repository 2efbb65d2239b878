package supervisor

import (
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Cluster mode has no engine clock control and no ResetState: the
// supervisor's admin port and a gateway's both refuse them, saying so.
func TestClusterRefusesClockAndReset(t *testing.T) {
	tc := startCluster(t, 1, 2, 2)
	for name, c := range map[string]apb.AdminServiceClient{"supervisor": tc.admin, "gateway": apb.NewAdminServiceClient(tc.conns[0])} {
		calls := map[string]func() error{
			"GetClock": func() error {
				_, err := c.GetClock(ctxT(t, 5*time.Second), &apb.GetClockRequest{})
				return err
			},
			"AdvanceClock": func() error {
				_, err := c.AdvanceClock(ctxT(t, 5*time.Second), &apb.AdvanceClockRequest{DurationMs: 1000})
				return err
			},
			"SetClock": func() error {
				_, err := c.SetClock(ctxT(t, 5*time.Second), &apb.SetClockRequest{EpochMs: time.Now().UnixMilli() + 1000})
				return err
			},
			"ResetState": func() error {
				_, err := c.ResetState(ctxT(t, 5*time.Second), &apb.ResetStateRequest{})
				return err
			},
		}
		for call, f := range calls {
			err := f()
			if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "jobwire-engine dev") {
				t.Errorf("%s %s: %v, want UNIMPLEMENTED naming `jobwire-engine dev`", name, call, err)
			}
		}
	}
}
