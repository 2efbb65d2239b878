/*
 * jobwire: launcher for the real Zeebe workflow engine shipped in
 * io.camunda:zeebe-process-test-engine, serving the Zeebe gateway gRPC API.
 *
 * It lives in the engine's package because the pieces the engine is assembled from
 * (log storage, command writer, gateway service, job streamer, response writer) are
 * package-private. It wires them the same way the library's own factory does, with
 * these differences that make it behave like a real Camunda 8.8 gateway:
 *
 *   1. the gRPC server binds 127.0.0.1 only (the library binds every interface);
 *   2. real gateway transport settings: 4 MB max inbound message, clients may ping
 *      every 30 s at most, and not while they have no call open;
 *   3. a StreamActivatedJobs request without tenantIds gets the default tenant
 *      "<default>" (what the real gateway does with multi-tenancy off; without it the
 *      engine never pushes a job to the stream);
 *   4. an optional warm-up (--warmup N) that drives N instances of a one-task process
 *      through the engine before announcing the port, so the JIT has compiled the hot
 *      paths before a benchmark starts;
 *   5. responses carry what the real gateway's mapping sets and the test engine's leaves
 *      out: tenantId "<default>", listenerEventType UNSPECIFIED on BPMN jobs (see
 *      ResponseCompletionInterceptor).
 *
 * Usage: java -jar zeebe-engine.jar [--port N] [--warmup N] [--ignore-stdin]
 * Prints "zeebe-engine listening on 127.0.0.1:<port>" once the gateway answers calls.
 * Exits when stdin reaches end of file (unless --ignore-stdin) and on SIGTERM/SIGINT.
 */
package io.camunda.zeebe.process.test.engine;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.camunda.search.clients.SearchClientsProxy;
import io.camunda.security.auth.BrokerRequestAuthorizationConverter;
import io.camunda.security.configuration.SecurityConfiguration;
import io.camunda.zeebe.db.ZeebeDb;
import io.camunda.zeebe.engine.Engine;
import io.camunda.zeebe.engine.EngineConfiguration;
import io.camunda.zeebe.engine.processing.EngineProcessors;
import io.camunda.zeebe.engine.processing.message.command.SubscriptionCommandSender;
import io.camunda.zeebe.gateway.protocol.GatewayGrpc;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.ActivateJobsRequest;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.ActivateJobsResponse;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.ActivatedJob;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.BrokerInfo;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.CompleteJobRequest;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.CreateProcessInstanceRequest;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.DeployResourceRequest;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.Resource;
import io.camunda.zeebe.gateway.protocol.GatewayOuterClass.StreamActivatedJobsRequest;
import io.camunda.zeebe.logstreams.log.LogStream;
import io.camunda.zeebe.process.test.engine.db.InMemoryDbFactory;
import io.camunda.zeebe.protocol.ZbColumnFamilies;
import io.camunda.zeebe.scheduler.ActorScheduler;
import io.camunda.zeebe.scheduler.clock.ControlledActorClock;
import io.camunda.zeebe.stream.impl.ControllableStreamClockImpl;
import io.camunda.zeebe.stream.impl.StreamProcessor;
import io.camunda.zeebe.util.FeatureFlags;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.util.MutableHandlerRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

public final class JobwireZeebeLauncher {

  /** The tenant the real gateway assumes when multi-tenancy is disabled. */
  static final String DEFAULT_TENANT = "<default>";

  static final int MAX_INBOUND_MESSAGE_BYTES = 4 * 1024 * 1024;
  static final long PERMIT_KEEPALIVE_SECONDS = 30;

  private static final String WARMUP_PROCESS_ID = "jobwire-warmup";
  private static final String WARMUP_JOB_TYPE = "jobwire-warmup";

  private final Server server;
  private final StreamProcessor streamProcessor;
  private final ZeebeDb<ZbColumnFamilies> database;
  private final LogStream logStream;
  private final ActorScheduler scheduler;
  private final HealthStatusManager health;
  private final AtomicBoolean stopped = new AtomicBoolean();

  private JobwireZeebeLauncher(
      final Server server,
      final StreamProcessor streamProcessor,
      final ZeebeDb<ZbColumnFamilies> database,
      final LogStream logStream,
      final ActorScheduler scheduler,
      final HealthStatusManager health) {
    this.server = server;
    this.streamProcessor = streamProcessor;
    this.database = database;
    this.logStream = logStream;
    this.scheduler = scheduler;
    this.health = health;
  }

  /**
   * Starts the engine and its gateway on 127.0.0.1:port (0 picks a free port). Calls are
   * answered only once the stream processor is open: until then the server has no services.
   */
  static JobwireZeebeLauncher start(final int port) throws IOException {
    final int partitionId = 1;
    final int partitionCount = 1;

    // The server starts first (so that port 0 resolves to the real port, which the
    // gateway reports in Topology); services are added once the engine is ready.
    final MutableHandlerRegistry registry = new MutableHandlerRegistry();
    final Server server =
        NettyServerBuilder.forAddress(
                new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port))
            .fallbackHandlerRegistry(registry)
            .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
            .permitKeepAliveTime(PERMIT_KEEPALIVE_SECONDS, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(false)
            .build()
            .start();
    final int boundPort = server.getPort();

    final ControlledActorClock clock = new ControlledActorClock();
    final ActorScheduler scheduler = ActorScheduler.newActorScheduler().setActorClock(clock).build();
    scheduler.start();

    final InMemoryLogStorage logStorage = new InMemoryLogStorage();
    final LogStream logStream =
        LogStream.builder()
            .withPartitionId(partitionId)
            .withLogStorage(logStorage)
            .withClock(clock)
            .withMeterRegistry(new SimpleMeterRegistry())
            .build();

    final CommandWriter commandWriter = new CommandWriter(logStream.newLogStreamWriter());
    final CommandSender commandSender = new CommandSender(commandWriter);
    final GatewayRequestStore requestStore = new GatewayRequestStore();
    final InMemoryJobStreamer jobStreamer = new InMemoryJobStreamer(commandWriter);
    final GrpcToLogStreamGateway gateway =
        new GrpcToLogStreamGateway(
            commandWriter, partitionId, partitionCount, boundPort, requestStore, jobStreamer);
    final GrpcResponseWriter responseWriter =
        new GrpcResponseWriter(gateway, requestStore, null);

    final ZeebeDb<ZbColumnFamilies> database = new InMemoryDbFactory<ZbColumnFamilies>().createDb();

    final SecurityConfiguration security = new SecurityConfiguration();
    security.getAuthorizations().setEnabled(false);
    final StreamProcessor streamProcessor =
        StreamProcessor.builder()
            .logStream(logStream)
            .zeebeDb(database)
            .commandResponseWriter(responseWriter)
            .partitionCommandSender(commandSender)
            .recordProcessors(
                List.of(
                    new Engine(
                        context ->
                            EngineProcessors.createEngineProcessors(
                                context,
                                partitionCount,
                                new SubscriptionCommandSender(
                                    context.getPartitionId(), commandSender),
                                commandSender,
                                FeatureFlags.createDefault(),
                                jobStreamer,
                                SearchClientsProxy.noop(),
                                new BrokerRequestAuthorizationConverter(security)),
                        new EngineConfiguration(),
                        security)))
            .actorSchedulingService(scheduler)
            .clock(new ControllableStreamClockImpl(clock))
            .meterRegistry(new SimpleMeterRegistry())
            .build();
    streamProcessor.openAsync(false).join();

    final HealthStatusManager health = new HealthStatusManager();
    registry.addService(
        ServerInterceptors.intercept(
            gateway, new DefaultTenantInterceptor(), new ResponseCompletionInterceptor()));
    registry.addService(health.getHealthService());
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus(GatewayGrpc.SERVICE_NAME, ServingStatus.SERVING);

    return new JobwireZeebeLauncher(
        server, streamProcessor, database, logStream, scheduler, health);
  }

  int port() {
    return server.getPort();
  }

  void stop() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    health.enterTerminalState();
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
      streamProcessor.close();
      database.close();
      logStream.close();
      scheduler.stop().get(5, TimeUnit.SECONDS);
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (final Exception e) {
      System.err.println("zeebe-engine: error while stopping: " + e);
    }
  }

  /**
   * Fills in the default tenant on StreamActivatedJobs requests that name no tenant, as the
   * real gateway does when multi-tenancy is disabled. Other calls pass through unchanged.
   */
  static final class DefaultTenantInterceptor implements ServerInterceptor {
    private static final String STREAM_METHOD =
        GatewayGrpc.getStreamActivatedJobsMethod().getFullMethodName();

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        final ServerCall<ReqT, RespT> call,
        final Metadata headers,
        final ServerCallHandler<ReqT, RespT> next) {
      final ServerCall.Listener<ReqT> listener = next.startCall(call, headers);
      if (!STREAM_METHOD.equals(call.getMethodDescriptor().getFullMethodName())) {
        return listener;
      }
      return new SimpleForwardingServerCallListener<>(listener) {
        @Override
        public void onMessage(final ReqT message) {
          super.onMessage(withDefaultTenant(message));
        }
      };
    }

    @SuppressWarnings("unchecked")
    static <T> T withDefaultTenant(final T message) {
      if (message instanceof StreamActivatedJobsRequest request
          && request.getTenantIdsCount() == 0) {
        return (T) request.toBuilder().addTenantIds(DEFAULT_TENANT).build();
      }
      return message;
    }
  }

  /**
   * Fills in what the real gateway's response mapping sets and the test engine's mapping leaves
   * out, so responses look like a Camunda 8.8 gateway's with multi-tenancy off:
   *
   * <ul>
   *   <li>every empty {@code tenantId} (jobs, process instances, deployments, messages) becomes
   *       {@code <default>} — with multi-tenancy off every entity belongs to that tenant;
   *   <li>an activated job of kind BPMN_ELEMENT gets listenerEventType UNSPECIFIED (the test
   *       engine leaves the field at its zero value, ASSIGNING, which only task listeners use);
   *   <li>Topology reports the broker host as 127.0.0.1 instead of the engine's wildcard
   *       (any-local) address, which no client can dial.
   * </ul>
   */
  static final class ResponseCompletionInterceptor implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        final ServerCall<ReqT, RespT> call,
        final Metadata headers,
        final ServerCallHandler<ReqT, RespT> next) {
      return next.startCall(
          new SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(final RespT message) {
              super.sendMessage(complete(message));
            }
          },
          headers);
    }

    @SuppressWarnings("unchecked")
    static <T> T complete(final T message) {
      if (message instanceof Message m) {
        final Message completed = completeMessage(m);
        return completed == m ? message : (T) completed;
      }
      return message;
    }

    /** Returns {@code m} itself when nothing needed filling in, else a completed copy. */
    private static Message completeMessage(final Message m) {
      Message.Builder builder = null;
      for (final FieldDescriptor field : m.getDescriptorForType().getFields()) {
        if (field.getJavaType() == FieldDescriptor.JavaType.STRING
            && !field.isRepeated()
            && field.getName().equals("tenantId")
            && ((String) m.getField(field)).isEmpty()) {
          builder = builder != null ? builder : m.toBuilder();
          builder.setField(field, DEFAULT_TENANT);
        } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
          if (field.isRepeated()) {
            final int n = m.getRepeatedFieldCount(field);
            for (int i = 0; i < n; i++) {
              final Message item = (Message) m.getRepeatedField(field, i);
              final Message done = completeMessage(item);
              if (done != item) {
                builder = builder != null ? builder : m.toBuilder();
                builder.setRepeatedField(field, i, done);
              }
            }
          } else if (m.hasField(field)) {
            final Message item = (Message) m.getField(field);
            final Message done = completeMessage(item);
            if (done != item) {
              builder = builder != null ? builder : m.toBuilder();
              builder.setField(field, done);
            }
          }
        }
      }
      if (m instanceof ActivatedJob job
          && job.getKind() == ActivatedJob.JobKind.BPMN_ELEMENT
          && job.getListenerEventType() == ActivatedJob.ListenerEventType.ASSIGNING) {
        builder = builder != null ? builder : m.toBuilder();
        ((ActivatedJob.Builder) builder)
            .setListenerEventType(ActivatedJob.ListenerEventType.UNSPECIFIED);
      }
      if (m instanceof BrokerInfo broker && isWildcard(broker.getHost())) {
        builder = builder != null ? builder : m.toBuilder();
        ((BrokerInfo.Builder) builder).setHost("127.0.0.1");
      }
      return builder == null ? m : builder.build();
    }

    /** True for the any-local address (IPv4 or IPv6) the engine reports as its host. */
    private static boolean isWildcard(String host) {
      try {
        return java.net.InetAddress.getByName(host).isAnyLocalAddress();
      } catch (java.net.UnknownHostException e) {
        return false;
      }
    }
  }

  /**
   * Drives {@code instances} instances of a one-service-task process through the engine over
   * the gateway (create, activate, complete), so the JIT compiles the engine's hot paths. Leaves
   * a deployed process "jobwire-warmup" and only completed instances behind.
   */
  void warmUp(final int instances) throws Exception {
    final ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port()).usePlaintext().build();
    try {
      final var stub = GatewayGrpc.newBlockingStub(channel);
      final var async = GatewayGrpc.newFutureStub(channel);
      final byte[] bpmn;
      try (InputStream in =
          JobwireZeebeLauncher.class.getResourceAsStream("/jobwire-warmup.bpmn")) {
        if (in == null) {
          throw new IllegalStateException("jobwire-warmup.bpmn missing from the jar");
        }
        bpmn = in.readAllBytes();
      }
      stub.withDeadlineAfter(30, TimeUnit.SECONDS)
          .deployResource(
              DeployResourceRequest.newBuilder()
                  .addResources(
                      Resource.newBuilder()
                          .setName("jobwire-warmup.bpmn")
                          .setContent(ByteString.copyFrom(bpmn)))
                  .build());

      final int batch = 32;
      int created = 0;
      int completed = 0;
      while (completed < instances) {
        final int n = Math.min(batch, instances - created);
        final List<com.google.common.util.concurrent.ListenableFuture<?>> calls =
            new ArrayList<>();
        for (int i = 0; i < n; i++) {
          calls.add(
              async
                  .withDeadlineAfter(30, TimeUnit.SECONDS)
                  .createProcessInstance(
                      CreateProcessInstanceRequest.newBuilder()
                          .setBpmnProcessId(WARMUP_PROCESS_ID)
                          .setVersion(-1)
                          .setVariables("{\"warmup\":true}")
                          .build()));
        }
        for (final var call : calls) {
          call.get();
        }
        created += n;
        calls.clear();
        final var it =
            stub.withDeadlineAfter(30, TimeUnit.SECONDS)
                .activateJobs(
                    ActivateJobsRequest.newBuilder()
                        .setType(WARMUP_JOB_TYPE)
                        .setWorker("jobwire-warmup")
                        .setTimeout(60_000)
                        .setMaxJobsToActivate(batch)
                        .setRequestTimeout(1_000)
                        .build());
        while (it.hasNext()) {
          final ActivateJobsResponse response = it.next();
          for (final ActivatedJob job : response.getJobsList()) {
            calls.add(
                async
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .completeJob(
                        CompleteJobRequest.newBuilder()
                            .setJobKey(job.getKey())
                            .setVariables("{\"done\":true}")
                            .build()));
          }
        }
        for (final var call : calls) {
          call.get();
        }
        completed += calls.size();
        if (calls.isEmpty() && completed < created) {
          Thread.sleep(5); // jobs not yet activatable: the engine is still processing
        }
      }
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  public static void main(final String[] args) throws Exception {
    int port = 26500;
    int warmup = 0;
    boolean watchStdin = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(requireValue(args, ++i, "--port"));
        case "--warmup" -> warmup = Integer.parseInt(requireValue(args, ++i, "--warmup"));
        case "--ignore-stdin" -> watchStdin = false;
        case "-h", "--help" -> {
          System.out.println(
              "usage: zeebe-engine [--port N (0 = free port, default 26500)] [--warmup N]"
                  + " [--ignore-stdin]");
          return;
        }
        default -> usage("unknown argument: " + args[i]);
      }
    }
    if (port < 0 || port > 65535) {
      usage("--port must be 0..65535");
    }
    if (warmup < 0) {
      usage("--warmup must be >= 0");
    }

    final long t0 = System.nanoTime();
    final JobwireZeebeLauncher engine = start(port);
    final CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  engine.stop();
                  done.countDown();
                },
                "zeebe-engine-shutdown"));

    final long tReady = System.nanoTime();
    final long uptimeReady = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
    if (warmup > 0) {
      engine.warmUp(warmup);
    }
    final long tWarm = System.nanoTime();

    final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.err.printf(
        "zeebe-engine: engine ready in %d ms (JVM start to ready %d ms), warm-up of %d instances"
            + " took %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(tReady - t0),
        uptimeReady,
        warmup,
        TimeUnit.NANOSECONDS.toMillis(tWarm - tReady));
    out.println("zeebe-engine listening on 127.0.0.1:" + engine.port());

    if (watchStdin) {
      final Thread watcher =
          new Thread(
              () -> {
                try {
                  final byte[] buf = new byte[256];
                  while (System.in.read(buf) >= 0) {
                    // discard input; only end of file matters
                  }
                } catch (final IOException e) {
                  // stdin unusable: treat like closed
                }
                System.exit(0);
              },
              "zeebe-engine-stdin-watch");
      watcher.setDaemon(true);
      watcher.start();
    }
    done.await();
  }

  private static String requireValue(final String[] args, final int i, final String flag) {
    if (i >= args.length) {
      usage(flag + " needs a value");
    }
    return args[i];
  }

  private static void usage(final String message) {
    System.err.println("zeebe-engine: " + message);
    System.err.println(
        "usage: zeebe-engine [--port N (0 = free port, default 26500)] [--warmup N]"
            + " [--ignore-stdin]");
    System.exit(2);
  }
}
