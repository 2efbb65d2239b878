package supervisor

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// A child's port must survive its restarts: it is chosen below the kernel's
// ephemeral range, where no outgoing connection can take it meanwhile.
func TestStablePortBelowEphemeralRange(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skip("no ip_local_port_range here")
	}
	lo, _ := strconv.Atoi(strings.Fields(string(b))[0])
	if lo <= 12000 {
		t.Skipf("ephemeral range starts at %d", lo)
	}
	for i := 0; i < 20; i++ {
		p := stablePort()
		if p < lo-10000 || p >= lo {
			t.Fatalf("stablePort() = %d, want in [%d, %d)", p, lo-10000, lo)
		}
	}
}
