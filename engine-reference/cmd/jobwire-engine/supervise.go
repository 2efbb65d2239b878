package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/supervisor"
)

// clusterCmd starts and supervises a multi-process cluster.
func clusterCmd(args []string) int {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	gws := fs.Int("gateways", 2, "gateway processes")
	brokers := fs.Int("brokers", 3, "broker processes")
	parts := fs.Int("partitions", 6, "partitions (partition p on broker (p-1) % brokers)")
	base := fs.Int("base-port", 0, "admin port; gateways and brokers on the next ports (0 = free ports)")
	dataDir := fs.String("data-dir", "", "data directory (default: a fresh temp dir, removed on exit)")
	stdinClose := fs.Bool("exit-on-stdin-close", false, "exit when stdin is closed")
	noSync := fs.Bool("no-fsync", false, "brokers skip fsync (not crash-safe)")
	uiPort := fs.Int("ui-port", 0, "port of the live view web page, served by the first gateway on 127.0.0.1 (0 = a free port)")
	noUI := fs.Bool("no-ui", false, "do not serve the live view web page")
	history := fs.Int("history", 0, "finished instances and jobs each partition keeps for the admin API (default: the brokers' default, 1000)")
	security := securityFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	t0 := time.Now()
	var sc engine.Config
	security(&sc)
	s, err := supervisor.Start(supervisor.Config{Gateways: *gws, Brokers: *brokers, Partitions: *parts, BasePort: *base, UI: !*noUI, UIPort: *uiPort, History: *history,
		DataDir: *dataDir, NoSync: *noSync, Security: supervisor.Security{TLSCert: sc.TLSCert, TLSKey: sc.TLSKey,
			TLSClientCA: sc.TLSClientCA, OAuth: sc.OAuth, OAuthID: sc.OAuthID, OAuthSecret: sc.OAuthKey, OAuthTTL: sc.OAuthTTL,
			OAuthLeeway: sc.OAuthLeeway, Issuer: sc.OAuthIssuer, Audience: sc.OAuthAudience, OAuthSigningKey: sc.OAuthSigningKey,
			OAuthPublicKey: sc.OAuthPublicKey, OAuthJWKS: sc.OAuthJWKS, AdminTokenFile: sc.AdminTokenFile}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "jobwire-engine cluster: %v\n", err)
		return 1
	}
	if u := s.TokenURL(); u != "" {
		fmt.Printf("oauth token endpoint %s\n", u)
	}
	fmt.Printf("jobwire-engine cluster ready: gateways %s admin %s (%d brokers, %d partitions, data %s, started in %d ms)\n",
		strings.Join(s.GatewayAddrs(), ","), s.AdminAddr(), *brokers, *parts, s.DataDir(), time.Since(t0).Milliseconds())
	waitForStop(stop, *stdinClose)
	// Exiting early is safe: the children die with the supervisor
	// (Pdeathsig) and see their stdin close.
	return shutdown(stop, "cluster", clusterShutdownLimit, s.Close)
}
