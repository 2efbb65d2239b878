// camunda-saas connects a worker to a Camunda 8 SaaS cluster (or any Zeebe
// gateway behind OAuth) with client credentials, prints the cluster topology
// and handles jobs of JOB_TYPE until Ctrl-C.
//
// Create an API client in the Camunda console (scope Zeebe) and export what it shows:
//
//	export ZEEBE_ADDRESS=<cluster-id>.<region>.zeebe.camunda.io:443
//	export ZEEBE_CLIENT_ID=...  ZEEBE_CLIENT_SECRET=...
//	export ZEEBE_AUTHORIZATION_SERVER_URL=https://login.cloud.camunda.io/oauth/token   # the default
//	export ZEEBE_TOKEN_AUDIENCE=zeebe.camunda.io                                       # the default
//	go run .
//
// jobwire.NewClient(ctx) alone would read the same variables; the options are
// spelled out here to show them. TLS is on because the address is not loopback.
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jobwire/jobwire/sdk-go"
)

func main() {
	log.SetFlags(log.Ltime)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	address := must("ZEEBE_ADDRESS")
	client, err := jobwire.NewClient(ctx,
		jobwire.WithAddress(address),
		jobwire.WithOAuth(jobwire.OAuthOptions{
			ClientID:               must("ZEEBE_CLIENT_ID"),
			ClientSecret:           must("ZEEBE_CLIENT_SECRET"),
			AuthorizationServerURL: env("ZEEBE_AUTHORIZATION_SERVER_URL", "https://login.cloud.camunda.io/oauth/token"),
			Audience:               env("ZEEBE_TOKEN_AUDIENCE", "zeebe.camunda.io"),
		}),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	topo, err := client.Topology(tctx) // fetches a token, then calls the gateway
	cancel()
	if err != nil {
		log.Fatalf("topology of %s: %v", address, err) // e.g. *jobwire.UnauthenticatedError: check the credentials
	}
	log.Printf("connected to %s: gateway %s, %d broker(s), %d partition(s)",
		address, topo.GatewayVersion, len(topo.Brokers), topo.PartitionsCount)

	jobType := env("JOB_TYPE", "hello")
	w, err := client.NewWorker(jobType, func(ctx context.Context, job *jobwire.Job) (any, error) {
		log.Printf("job %d of process %s", job.Key, job.BPMNProcessID)
		return map[string]any{"handledBy": "jobwire"}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("handling %q jobs; Ctrl-C to stop", jobType)
	<-ctx.Done()
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Close(closeCtx); err != nil {
		log.Print(err)
	}
	log.Print("stopped")
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func must(name string) string {
	v := os.Getenv(name)
	if v == "" {
		log.Fatalf("%s is not set (see the comment at the top of main.go)", name)
	}
	return v
}
