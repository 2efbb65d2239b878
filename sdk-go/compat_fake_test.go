package jobwire

import (
	"context"
	"log/slog"
	"testing"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
)

// Against a gateway before Zeebe 8.8 (no process instance tags) the instance
// is created without its tags: the client says so once, at warn, and never
// fails the call. A gateway that keeps the tags causes no log line.
func TestFakeTagsDroppedByOlderGatewayAreLoggedOnce(t *testing.T) {
	for _, drop := range []bool{true, false} {
		gw := fakegw.Start(t)
		gw.Set(func(s *fakegw.Server) { s.DropTags = drop })
		c, rec := recordingClient(t, gw)
		for i := 0; i < 3; i++ {
			pi, err := c.CreateProcessInstance(context.Background(), CreateInstance{BPMNProcessID: "p", Tags: []string{"team:a"}})
			if err != nil {
				t.Fatalf("drop=%v: %v", drop, err)
			}
			if drop != (len(pi.Tags) == 0) {
				t.Fatalf("drop=%v: tags %v", drop, pi.Tags)
			}
		}
		// no tags asked for: never a warning
		if _, err := c.CreateProcessInstance(context.Background(), CreateInstance{BPMNProcessID: "p"}); err != nil {
			t.Fatal(err)
		}
		want := 0
		if drop {
			want = 1
		}
		if n := rec.count(slog.LevelWarn, "process instance tags need Zeebe 8.8"); n != want {
			t.Fatalf("drop=%v: %d warnings, want %d", drop, n, want)
		}
	}
}
