package io.jobwire.internal;

import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.jobwire.RequestCancelledException;
import io.jobwire.ConfigurationException;
import io.jobwire.JobwireException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connections of a client: one command channel (per address) for every unary call of the
 * client and its workers, and long-call connections for the workers' long polls and push
 * streams (at most {@link #WORKERS_PER_LONG_CONNECTION} workers each, small HTTP/2 receive
 * window). Typed errors, bearer tokens.
 */
public final class Transport {
  /** Workers per long-call connection: 2 × 32 = 64 calls stay under common MAX_CONCURRENT_STREAMS limits. */
  public static final int WORKERS_PER_LONG_CONNECTION = 32;

  private static final int MAX_INBOUND = 5 * 1024 * 1024;
  private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ClientConfig config;
  private final ChannelCredentials creds;
  private final List<ManagedChannel> command;
  private final List<LongConnection> longConnections = new ArrayList<>();
  private final AtomicInteger next = new AtomicInteger();
  private final OAuthTokenProvider oauth;
  private final CallCredentials callCredentials;
  private volatile boolean closed;
  /** In-process calls instead of the network (see {@link #local}); null for a real transport. */
  private final LocalCalls local;

  /**
   * Where a {@link #local local} transport's unary calls go: the in-process stand-in for the gateway
   * that the handler runner of {@code io.jobwire.testing} records outcomes with.
   */
  public interface LocalCalls {
    /** One unary call; completes with the response or exceptionally with the call's error. */
    <Q, R> CompletableFuture<R> call(MethodDescriptor<Q, R> method, Q request);
  }

  /**
   * A transport without a network: every unary call (on the command channel or a leased long-call
   * connection) goes to {@code calls}. Used by the handler runner to run a handler through the
   * worker's own executor and outcome code; streaming calls are not available.
   */
  public static Transport local(ClientConfig config, LocalCalls calls) {
    return new Transport(config, calls);
  }

  private Transport(ClientConfig config, LocalCalls calls) {
    this.config = config;
    this.creds = null;
    this.oauth = null;
    this.callCredentials = null;
    this.command = List.of();
    this.local = calls;
  }

  public Transport(ClientConfig config) throws ConfigurationException {
    this.config = config;
    this.local = null;
    if (config.insecure()) {
      creds = InsecureChannelCredentials.create();
    } else {
      TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
      if (config.caCertificatePath() != null) {
        try {
          b.trustManager(config.caCertificatePath().toFile());
        } catch (IOException | RuntimeException e) {
          throw new ConfigurationException("jobwire: cannot read CA certificate " + config.caCertificatePath() + ": " + e.getMessage(), e);
        }
      }
      if (config.clientCertificatePath() != null) {
        try {
          b.keyManager(config.clientCertificatePath().toFile(), config.clientKeyPath().toFile()); // mutual TLS
        } catch (IOException | RuntimeException e) {
          throw new ConfigurationException("jobwire: cannot read the client certificate or key: " + e.getMessage(), e);
        }
      }
      creds = b.build();
    }
    oauth = config.oauth() == null ? null : new OAuthTokenProvider(config.oauth(), System::currentTimeMillis);
    callCredentials = oauth == null ? null : new BearerCredentials(oauth);
    command = newChannels(false);
  }

  public ClientConfig config() {
    return config;
  }

  public boolean hasAuth() {
    return oauth != null;
  }

  /** Forgets the cached token after UNAUTHENTICATED, so the next call fetches a fresh one. */
  public void invalidateToken() {
    if (oauth != null) oauth.invalidate(null);
  }

  private List<ManagedChannel> newChannels(boolean longCalls) {
    List<ManagedChannel> out = new ArrayList<>();
    if (local != null) return out;
    for (String a : config.addresses()) {
      NettyChannelBuilder b =
          NettyChannelBuilder.forTarget(a, creds)
              .keepAliveTime(config.keepAlive().toMillis(), TimeUnit.MILLISECONDS)
              // 20 s for the default 45 s keepalive, scaled with it (as in every SDK), so a
              // blackholed connection is dropped within about 1.5 × keepAlive
              .keepAliveTimeout(Math.max(1_000, config.keepAlive().toMillis() * 20 / 45), TimeUnit.MILLISECONDS)
              .maxInboundMessageSize(MAX_INBOUND)
              .userAgent("jobwire-java/" + Version.VERSION);
      if (a.startsWith("dns:///")) b.defaultLoadBalancingPolicy("round_robin");
      if (longCalls) {
        // A small receive window (and no BDP growth): while a worker is full it stops reading its
        // stream, so only a window's worth of activated jobs waits in transport buffers; the
        // gateway's sender then blocks and the engine gives further jobs to other workers.
        b.flowControlWindow(config.streamWindowBytes());
      }
      // raw channel options of the application, applied after the client's own (every connection)
      if (config.channelCustomizer() != null) config.channelCustomizer().accept(b);
      out.add(b.build());
    }
    return out;
  }

  private CallOptions options(Duration timeout, boolean waitForReady) {
    CallOptions o = CallOptions.DEFAULT;
    if (timeout != null) o = o.withDeadlineAfter(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
    if (waitForReady) o = o.withWaitForReady();
    if (callCredentials != null) o = o.withCallCredentials(callCredentials);
    return o;
  }

  /** Runs a call's callbacks on the thread that delivers them (the connection's event loop). */
  private static final Executor DIRECT = Runnable::run;

  /**
   * The options of a worker's own call, whose callbacks only hand their event to the worker's control
   * thread and never block: delivered on the connection's event loop, without a hop through gRPC's
   * shared executor (one thread wake-up less per message). Not with call credentials: their token
   * fetch runs on the call's executor and must not block the event loop.
   */
  private CallOptions workerOptions(Duration timeout, boolean waitForReady) {
    CallOptions o = options(timeout, waitForReady);
    return callCredentials == null ? o.withExecutor(DIRECT) : o;
  }

  private ManagedChannel pick(List<ManagedChannel> chans) {
    return chans.get(Math.floorMod(next.getAndIncrement(), chans.size()));
  }

  /**
   * A unary call on the command channel; completes exceptionally with a typed JobwireException.
   * One retry after a token refresh on UNAUTHENTICATED. Commands wait for a connection (until
   * their deadline) instead of failing at once while the channel reconnects.
   */
  public <Q, R> CompletableFuture<R> unary(MethodDescriptor<Q, R> method, Q req, Duration timeout) {
    return unary(method, req, timeout, command, false);
  }

  /**
   * A worker's own unary call on the command channel (its outcomes): as {@link #unary}, but the
   * returned future completes on the connection's event loop (see {@link #workerOptions}), so what
   * depends on it must only hand its work on, never block.
   */
  public <Q, R> CompletableFuture<R> workerUnary(MethodDescriptor<Q, R> method, Q req, Duration timeout) {
    return unary(method, req, timeout, command, true);
  }

  <Q, R> CompletableFuture<R> unary(MethodDescriptor<Q, R> method, Q req, Duration timeout, List<ManagedChannel> chans, boolean worker) {
    Duration t = timeout != null ? timeout : config.commandTimeout();
    CompletableFuture<R> out = new CompletableFuture<>();
    call(method, req, t, chans, worker, out, oauth != null);
    return out;
  }

  /**
   * One call, whose observer completes {@code out} itself (no intermediate future): with its result,
   * or exceptionally with a typed JobwireException. {@code refresh}: on UNAUTHENTICATED, fetch a
   * fresh token and call once more.
   */
  private <Q, R> void call(MethodDescriptor<Q, R> method, Q req, Duration timeout, List<ManagedChannel> chans, boolean worker,
      CompletableFuture<R> out, boolean refresh) {
    if (closed) {
      out.completeExceptionally(new RequestCancelledException(method.getBareMethodName() + ": client is closed", Status.Code.CANCELLED, "", null));
      return;
    }
    if (local != null) {
      local.call(method, req).whenComplete((r, e) -> {
        if (e == null) out.complete(r);
        else out.completeExceptionally(JobwireException.from(e, method.getBareMethodName()));
      });
      return;
    }
    ClientCall<Q, R> call = pick(chans).newCall(method, worker ? workerOptions(timeout, true) : options(timeout, true));
    ClientCalls.asyncUnaryCall(call, req, new StreamObserver<R>() {
      R value;

      @Override
      public void onNext(R v) {
        value = v;
      }

      @Override
      public void onError(Throwable t) {
        JobwireException je = JobwireException.from(t, method.getBareMethodName());
        if (refresh && je.code() == Status.Code.UNAUTHENTICATED) {
          oauth.invalidate(null);
          call(method, req, timeout, chans, worker, out, false);
        } else {
          out.completeExceptionally(je);
        }
      }

      @Override
      public void onCompleted() {
        out.complete(value);
      }
    });
  }

  /** A new call on the command channel (for a client's own server-streaming ActivateJobs). */
  public <Q, R> ClientCall<Q, R> newCommandCall(MethodDescriptor<Q, R> method, Duration deadline) {
    return pick(command).newCall(method, options(deadline, true));
  }

  /** A place for one worker's long-lived calls on a long-call connection (a new one when all are full). */
  public synchronized Lease leaseLong() {
    LongConnection c = null;
    for (LongConnection l : longConnections) {
      if (l.workers < WORKERS_PER_LONG_CONNECTION) {
        c = l;
        break;
      }
    }
    if (c == null) {
      c = new LongConnection(newChannels(true));
      longConnections.add(c);
    }
    c.workers++;
    return new Lease(c);
  }

  /** @return long-call connections open now (for tests) */
  public synchronized int longConnectionCount() {
    return longConnections.size();
  }

  private synchronized void releaseLease(LongConnection c) {
    c.workers--;
    if (c.workers == 0) {
      longConnections.remove(c);
      for (ManagedChannel ch : c.channels) ch.shutdown();
    }
  }

  /** Closes every channel; later calls fail with RequestCancelledException. */
  public void close() {
    closed = true;
    for (ManagedChannel ch : command) ch.shutdownNow();
    List<LongConnection> l;
    synchronized (this) {
      l = new ArrayList<>(longConnections);
      longConnections.clear();
    }
    for (LongConnection c : l) for (ManagedChannel ch : c.channels) ch.shutdownNow();
    for (ManagedChannel ch : command) {
      try {
        ch.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }

  public boolean isClosed() {
    return closed;
  }

  private static final class LongConnection {
    final List<ManagedChannel> channels;
    int workers;

    LongConnection(List<ManagedChannel> channels) {
      this.channels = channels;
    }
  }

  /** A worker's place on a long-call connection. */
  public final class Lease {
    private final LongConnection conn;
    private boolean released;
    private final AtomicInteger rr = new AtomicInteger();

    Lease(LongConnection conn) {
      this.conn = conn;
    }

    /** A new call of a server-streaming method on the leased connection. */
    public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, Duration deadline) {
      return newCall(method, deadline, pickChannel());
    }

    /** The next channel of the leased connection (round robin over the addresses), for {@link #newCall(MethodDescriptor, Duration, int)}. */
    public int pickChannel() {
      return Math.floorMod(rr.getAndIncrement(), conn.channels.size());
    }

    /**
     * A new call on one channel of the leased connection: a stream's ReleaseUnread goes to the channel
     * the stream used, so the gateway sees the stream's cancel first.
     */
    public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, Duration deadline, int channel) {
      return conn.channels.get(Math.floorMod(channel, conn.channels.size())).newCall(method, workerOptions(deadline, false));
    }

    /** A unary call on the leased connection (keeps the order of this connection). */
    public <Q, R> CompletableFuture<R> unary(MethodDescriptor<Q, R> method, Q req, Duration timeout) {
      synchronized (Transport.this) {
        if (released) return Transport.this.workerUnary(method, req, timeout);
      }
      return Transport.this.unary(method, req, timeout, conn.channels, true);
    }

    /** Gives the place back (idempotent); an unused connection is closed. */
    public void release() {
      synchronized (Transport.this) {
        if (released) return;
        released = true;
      }
      releaseLease(conn);
    }
  }

  /** Adds {@code authorization: Bearer <token>}; fetching a token never runs on a transport thread. */
  private static final class BearerCredentials extends CallCredentials {
    private final OAuthTokenProvider provider;

    BearerCredentials(OAuthTokenProvider provider) {
      this.provider = provider;
    }

    @Override
    public void applyRequestMetadata(RequestInfo info, Executor appExecutor, MetadataApplier applier) {
      appExecutor.execute(() -> {
        try {
          Metadata md = new Metadata();
          md.put(AUTHORIZATION, "Bearer " + provider.getToken());
          applier.apply(md);
        } catch (JobwireException e) {
          applier.fail(Status.UNAUTHENTICATED.withDescription(e.getMessage()).withCause(e));
        } catch (RuntimeException e) {
          applier.fail(Status.UNAUTHENTICATED.withDescription("oauth: " + e).withCause(e));
        }
      });
    }
  }
}
