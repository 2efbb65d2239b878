// otel-console shows the worker's OpenTelemetry traces: the SDK records a
// span "process job <type>" per job through the OpenTelemetry API; this
// program installs the OpenTelemetry SDK with the console (stdout) exporter,
// deploys a one-task process, runs one instance and prints the span.
// The OpenTelemetry SDK is this example's dependency, not jobwire's.
//
//	ZEEBE_ADDRESS=127.0.0.1:26500 go run .
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/jobwire/jobwire/sdk-go"
)

const process = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
                  id="Definitions_Greeting" targetNamespace="http://jobwire.dev/examples">
  <bpmn:process id="greeting" isExecutable="true">
    <bpmn:startEvent id="Start" />
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="SendGreeting" />
    <bpmn:serviceTask id="SendGreeting" name="Send a greeting">
      <bpmn:extensionElements><zeebe:taskDefinition type="send-greeting" /></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="SendGreeting" targetRef="End" />
    <bpmn:endEvent id="End" />
  </bpmn:process>
</bpmn:definitions>`

func main() {
	log.SetFlags(0)
	log.SetPrefix("otel-console (go): ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// 1. The OpenTelemetry SDK: spans go to stdout as JSON, one by one.
	exporter, err := stdouttrace.New(stdouttrace.WithPrettyPrint())
	if err != nil {
		log.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSyncer(exporter),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName("greeting-worker"))),
	)
	defer tp.Shutdown(context.Background()) // flushes the spans
	otel.SetTracerProvider(tp)              // or: jobwire.WithTracerProvider(tp)

	// 2. A client and a worker, as usual: they find the global provider.
	client, err := jobwire.NewClient(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	if _, err := client.DeployResource(ctx, "greeting.bpmn", []byte(process)); err != nil {
		log.Fatal(err)
	}
	w, err := client.NewWorker("send-greeting", func(ctx context.Context, job *jobwire.Job) (any, error) {
		var in struct{ Name string }
		if err := job.DecodeVariables(&in); err != nil {
			return nil, err
		}
		return map[string]any{"greeting": "Hello, " + in.Name}, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	res, err := client.CreateProcessInstanceWithResult(ctx, jobwire.CreateInstance{
		BPMNProcessID: "greeting", Variables: map[string]any{"name": "Ada"}}, 30*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = w.Close(closeCtx) // the span ends when the job's outcome is sent
	fmt.Fprintf(os.Stderr, "instance %d completed with %s\n", res.ProcessInstanceKey, res.Variables)
}
