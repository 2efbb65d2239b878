package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.CompleteJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.CompleteJobResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.FailJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.FailJobResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.StreamActivatedJobsRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ThrowErrorRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ThrowErrorResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.TopologyRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.TopologyResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Unit-level edge cases against an in-process fake gateway on 127.0.0.1 (a free port). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FakeGatewayTest {
  Server server;
  JobwireClient client;

  @AfterEach
  void stop() throws Exception {
    if (client != null) client.close(Duration.ofSeconds(2));
    if (server != null) server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  JobwireClient start(GatewayGrpc.GatewayImplBase impl) throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(impl).build().start();
    client = JobwireClient.builder().environment(Map.of()).address("127.0.0.1:" + server.getPort()).build();
    return client;
  }

  static ActivatedJob job(long key) {
    return ActivatedJob.newBuilder().setKey(key).setType("t").setRetries(3).setDeadline(System.currentTimeMillis() + 60_000).setVariables("{}").build();
  }

  /** Answers RESOURCE_EXHAUSTED to the first polls, then one job; no streaming (UNIMPLEMENTED). */
  static class Gw extends GatewayGrpc.GatewayImplBase {
    final AtomicInteger polls = new AtomicInteger();
    final List<Long> pollTimes = new CopyOnWriteArrayList<>();
    final List<Long> completed = new CopyOnWriteArrayList<>();
    final AtomicInteger streams = new AtomicInteger();
    final AtomicInteger completeFailures = new AtomicInteger(2);
    int exhausted;

    Gw(int exhausted) {
      this.exhausted = exhausted;
    }

    @Override
    public void activateJobs(ActivateJobsRequest req, StreamObserver<ActivateJobsResponse> obs) {
      int n = polls.incrementAndGet();
      pollTimes.add(System.currentTimeMillis());
      if (n <= exhausted) {
        obs.onError(Status.RESOURCE_EXHAUSTED.withDescription("backpressure").asRuntimeException());
        return;
      }
      if (n == exhausted + 1) obs.onNext(ActivateJobsResponse.newBuilder().addJobs(job(42)).build());
      obs.onCompleted();
    }

    @Override
    public void completeJob(CompleteJobRequest req, StreamObserver<CompleteJobResponse> obs) {
      if (completeFailures.getAndDecrement() > 0) {
        obs.onError(Status.UNAVAILABLE.withDescription("flaky").asRuntimeException());
        return;
      }
      completed.add(req.getJobKey());
      obs.onNext(CompleteJobResponse.getDefaultInstance());
      obs.onCompleted();
    }

    @Override
    public void streamActivatedJobs(StreamActivatedJobsRequest req, StreamObserver<ActivatedJob> obs) {
      streams.incrementAndGet();
      obs.onError(Status.UNIMPLEMENTED.asRuntimeException());
    }
  }

  @Test
  void backsOffOnResourceExhaustedFallsBackToPollingAndRetriesOutcomes() throws Exception {
    Gw gw = new Gw(4);
    List<WorkerState> states = new CopyOnWriteArrayList<>();
    JobWorker w = start(gw).newWorker().jobType("t").requestTimeout(Duration.ofMillis(-1)).pollInterval(Duration.ofMillis(50))
        .stateListener(states::add).handler(job -> Map.of("k", 1)).open();
    EngineIntegrationTest.waitFor(() -> gw.completed.size() == 1, 10_000);
    w.close(Duration.ofSeconds(2));
    assertEquals(List.of(42L), gw.completed);
    assertEquals(1, gw.streams.get(), "UNIMPLEMENTED: the stream is not retried");
    assertTrue(states.contains(WorkerState.BACKOFF), states.toString());
    assertEquals(WorkerState.CLOSED, states.get(states.size() - 1));
    // growing gaps between the RESOURCE_EXHAUSTED polls: 50, 80, 128 ms (±10 %)
    List<Long> t = gw.pollTimes;
    long g1 = t.get(2) - t.get(1);
    long g3 = t.get(4) - t.get(3);
    assertTrue(g3 > g1, "gaps " + g1 + " then " + g3);
    assertTrue(g1 >= 40, "first gap " + g1);
  }

  @Test
  void jobsBeyondCapacityAreFailedBackAtOnceAndDuplicatesNeverRunTwice() throws Exception {
    List<FailJobRequest> failed = new CopyOnWriteArrayList<>();
    List<Integer> asked = new CopyOnWriteArrayList<>();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    List<Long> ran = new CopyOnWriteArrayList<>();
    Gw gw = new Gw(0) {
      @Override
      public void activateJobs(ActivateJobsRequest req, StreamObserver<ActivateJobsResponse> obs) {
        int n = polls.incrementAndGet();
        asked.add(req.getMaxJobsToActivate());
        if (n == 1) {
          // a misbehaving gateway: 5 jobs for a capacity of 2, one of them twice
          obs.onNext(ActivateJobsResponse.newBuilder().addJobs(job(1)).addJobs(job(1)).addJobs(job(2)).addJobs(job(3)).addJobs(job(4)).build());
        }
        obs.onCompleted();
      }

      @Override
      public void failJob(FailJobRequest req, StreamObserver<FailJobResponse> obs) {
        failed.add(req);
        obs.onNext(FailJobResponse.getDefaultInstance());
        obs.onCompleted();
      }
    };
    gw.completeFailures.set(0);
    JobWorker w = start(gw).newWorker().jobType("t").streamEnabled(false).maxJobsActive(2).handler(job -> {
      int r = running.incrementAndGet();
      maxRunning.accumulateAndGet(r, Math::max);
      ran.add(job.key());
      Thread.sleep(200);
      running.decrementAndGet();
      return null;
    }).open();
    EngineIntegrationTest.waitFor(() -> gw.completed.size() == 2, 5_000);
    w.close(Duration.ofSeconds(2));
    assertEquals(2, (int) asked.get(0), "the first poll asks for the whole capacity");
    // handlers run concurrently (capacity 2), so the start order of 1 and 2 is not fixed
    assertEquals(List.of(1L, 2L), ran.stream().sorted().toList(), "job 1 runs once although delivered twice");
    assertTrue(maxRunning.get() <= 2);
    // job 1's copy is merged (duplicate), jobs 3 and 4 find no slot: failed back at once, retries unchanged
    assertEquals(2, failed.size(), failed.toString());
    for (FailJobRequest f : failed) {
      assertEquals(3, f.getRetries());
      assertEquals(0, f.getRetryBackOff());
      assertEquals("jobwire: worker at capacity; job returned", f.getErrorMessage());
    }
    assertEquals(Set.of(3L, 4L), Set.of(failed.get(0).getJobKey(), failed.get(1).getJobKey()));
  }

  /**
   * Zeebe's gateway answers ABORTED ("Connection ... was closed") when its connection to the
   * partition leader closes mid-request. Complete, Fail and ThrowError are sent again and land; an
   * outcome that was applied but whose answer was lost is answered NOT_FOUND on the resend: benign.
   */
  @Test
  void outcomesAnsweredAbortedAreRetriedAndAbortedThenNotFoundIsBenign() throws Exception {
    List<String> calls = new CopyOnWriteArrayList<>();
    Map<Long, AtomicInteger> tries = new java.util.concurrent.ConcurrentHashMap<>();
    Set<Long> applied = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Gw gw = new Gw(0) {
      int served;

      @Override
      public void activateJobs(ActivateJobsRequest req, StreamObserver<ActivateJobsResponse> obs) {
        synchronized (this) {
          if (served == 0) {
            served = 1;
            obs.onNext(ActivateJobsResponse.newBuilder().addJobs(job(1)).addJobs(job(2)).addJobs(job(3)).addJobs(job(4)).build());
          }
        }
        obs.onCompleted();
      }

      /** Jobs 1-3: ABORTED twice, then OK. Job 4: applied, answer lost (ABORTED), then NOT_FOUND. */
      <T> void answer(String method, long key, T ok, StreamObserver<T> obs) {
        int n = tries.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        Status err = null;
        if (applied.contains(key)) err = Status.NOT_FOUND.withDescription("job not found");
        else if (key == 4) applied.add(key);
        if (err == null && (key == 4 || n <= 2)) err = Status.ABORTED.withDescription("Connection RemoteClientConnection{channel=[id: 0x1]} was closed");
        calls.add(method + " " + key + " " + (err == null ? "OK" : err.getCode().name()));
        if (err != null) {
          obs.onError(err.asRuntimeException());
          return;
        }
        obs.onNext(ok);
        obs.onCompleted();
      }

      @Override
      public void completeJob(CompleteJobRequest req, StreamObserver<CompleteJobResponse> obs) {
        answer("CompleteJob", req.getJobKey(), CompleteJobResponse.getDefaultInstance(), obs);
      }

      @Override
      public void failJob(FailJobRequest req, StreamObserver<FailJobResponse> obs) {
        answer("FailJob", req.getJobKey(), FailJobResponse.getDefaultInstance(), obs);
      }

      @Override
      public void throwError(ThrowErrorRequest req, StreamObserver<ThrowErrorResponse> obs) {
        answer("ThrowError", req.getJobKey(), ThrowErrorResponse.getDefaultInstance(), obs);
      }
    };
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    JobWorker w = start(gw).newWorker().jobType("t").streamEnabled(false).errorListener(errors::add).handler(job -> {
      if (job.key() == 2) throw new IllegalStateException("kaboom");
      if (job.key() == 3) throw new JobErrorException("E1", "nope");
      return null;
    }).open();
    EngineIntegrationTest.waitFor(() -> calls.size() == 11, 10_000);
    Thread.sleep(300); // nothing more may be sent
    w.close(Duration.ofSeconds(2));
    List<String> sorted = new java.util.ArrayList<>(calls);
    java.util.Collections.sort(sorted);
    assertEquals(List.of(
        "CompleteJob 1 ABORTED", "CompleteJob 1 ABORTED", "CompleteJob 1 OK",
        "CompleteJob 4 ABORTED", "CompleteJob 4 NOT_FOUND",
        "FailJob 2 ABORTED", "FailJob 2 ABORTED", "FailJob 2 OK",
        "ThrowError 3 ABORTED", "ThrowError 3 ABORTED", "ThrowError 3 OK"), sorted);
    assertEquals(List.of(), errors);
  }

  @Test
  void severalAddressesAreBalancedRoundRobinPerCall() throws Exception {
    AtomicInteger[] calls = {new AtomicInteger(), new AtomicInteger()};
    Server[] servers = new Server[2];
    for (int i = 0; i < 2; i++) {
      int idx = i;
      servers[i] = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(new GatewayGrpc.GatewayImplBase() {
        @Override
        public void topology(TopologyRequest req, StreamObserver<TopologyResponse> obs) {
          calls[idx].incrementAndGet();
          obs.onNext(TopologyResponse.newBuilder().setGatewayVersion("gw-" + idx).build());
          obs.onCompleted();
        }
      }).build().start();
    }
    try (JobwireClient c = JobwireClient.builder().environment(Map.of())
        .address("127.0.0.1:" + servers[0].getPort() + ",127.0.0.1:" + servers[1].getPort()).build()) {
      assertEquals(2, c.addresses().size());
      for (int i = 0; i < 10; i++) c.topology().get(5, TimeUnit.SECONDS);
    } finally {
      for (Server s : servers) s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    assertEquals(5, calls[0].get());
    assertEquals(5, calls[1].get());
  }

  /**
   * A job redelivered (the same key activated again, e.g. after its timeout) while its first
   * attempt's outcome is in flight takes a slot when it arrives and keeps it: that slot is the one
   * its own run uses. When the first outcome is acknowledged only the first attempt's slot is
   * released, so once both attempts completed no slot is held and the worker can again hold
   * maxJobsActive jobs (docs/worker-semantics.md: each slot released exactly once).
   */
  @Test
  void redeliveryWhileTheOutcomeIsInFlightLeaksNoSlot() throws Exception {
    final int max = 4;
    AtomicInteger phase = new AtomicInteger(); // 0 first delivery, 1 outcome pending, 2 redeliver, 3 idle, 4 fill
    List<Integer> fillAsked = new CopyOnWriteArrayList<>();
    List<FailJobRequest> failed = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<StreamObserver<CompleteJobResponse>> firstComplete = new java.util.concurrent.atomic.AtomicReference<>();
    Gw gw = new Gw(0) {
      @Override
      public void activateJobs(ActivateJobsRequest req, StreamObserver<ActivateJobsResponse> obs) {
        polls.incrementAndGet();
        if (phase.compareAndSet(0, 1) || phase.compareAndSet(2, 3)) {
          obs.onNext(ActivateJobsResponse.newBuilder().addJobs(job(7)).build());
        } else if (phase.compareAndSet(4, 5)) {
          fillAsked.add(req.getMaxJobsToActivate());
          ActivateJobsResponse.Builder b = ActivateJobsResponse.newBuilder();
          for (int i = 0; i < req.getMaxJobsToActivate(); i++) b.addJobs(job(100 + i));
          obs.onNext(b.build());
        }
        obs.onCompleted();
      }

      @Override
      public void completeJob(CompleteJobRequest req, StreamObserver<CompleteJobResponse> obs) {
        if (req.getJobKey() == 7 && firstComplete.compareAndSet(null, obs)) {
          phase.set(2); // the first attempt's outcome stays in flight; the job is redelivered meanwhile
          return;
        }
        completed.add(req.getJobKey());
        obs.onNext(CompleteJobResponse.getDefaultInstance());
        obs.onCompleted();
      }

      @Override
      public void failJob(FailJobRequest req, StreamObserver<FailJobResponse> obs) {
        failed.add(req);
        obs.onNext(FailJobResponse.getDefaultInstance());
        obs.onCompleted();
      }
    };
    gw.completeFailures.set(0);
    AtomicInteger runsOf7 = new AtomicInteger();
    AtomicInteger fillRunning = new AtomicInteger();
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    JobWorker w = start(gw).newWorker().jobType("t").streamEnabled(false).maxJobsActive(max).concurrency(max)
        .requestTimeout(Duration.ofMillis(-1)).pollInterval(Duration.ofMillis(20)).handler(job -> {
          if (job.key() == 7) {
            runsOf7.incrementAndGet();
            return null;
          }
          fillRunning.incrementAndGet();
          release.await();
          return null;
        }).open();
    try {
      // the first attempt ran, its CompleteJob is unanswered, and the redelivery arrived
      EngineIntegrationTest.waitFor(() -> phase.get() == 3 && w.heldJobs() == 2, 5_000);
      assertEquals(1, runsOf7.get(), "the redelivery waits for the first attempt's outcome");
      firstComplete.get().onNext(CompleteJobResponse.getDefaultInstance());
      firstComplete.get().onCompleted();
      // the redelivery runs after the acknowledgement and completes
      EngineIntegrationTest.waitFor(() -> gw.completed.size() == 1, 5_000);
      assertEquals(2, runsOf7.get());
      long end = System.currentTimeMillis() + 2_000;
      while (w.heldJobs() != 0 && System.currentTimeMillis() < end) Thread.sleep(10);
      assertEquals(0, w.heldJobs(), "both attempts of job 7 completed: no slot may stay held");
      // the worker can again hold maxJobsActive jobs
      phase.set(4);
      end = System.currentTimeMillis() + 5_000;
      while (fillRunning.get() < max && System.currentTimeMillis() < end) Thread.sleep(10);
      assertEquals(List.of(max), fillAsked, "the next poll asks for the whole capacity");
      assertEquals(max, fillRunning.get(), "maxJobsActive jobs run at once");
      assertEquals(max, w.heldJobs());
      assertEquals(List.of(), failed, "no job was handed back at capacity");
    } finally {
      release.countDown();
    }
    EngineIntegrationTest.waitFor(() -> gw.completed.size() == 1 + max, 5_000);
    EngineIntegrationTest.waitFor(() -> w.heldJobs() == 0, 2_000);
    w.close(Duration.ofSeconds(2));
  }

  @Test
  void emptyPollsPauseWhenTheGatewayDoesNotPark() throws Exception {
    Gw gw = new Gw(0) {
      @Override
      public void activateJobs(ActivateJobsRequest req, StreamObserver<ActivateJobsResponse> obs) {
        polls.incrementAndGet();
        obs.onCompleted(); // answers at once, never parks
      }
    };
    JobWorker w = start(gw).newWorker().jobType("t").streamEnabled(false).handler(job -> null).open();
    Thread.sleep(1_000);
    w.close(Duration.ofSeconds(1));
    // pollInterval 100 ms: about 10 polls in a second, never a tight loop
    assertTrue(gw.polls.get() <= 15, "polls in 1 s: " + gw.polls.get());
    assertTrue(gw.polls.get() >= 5, "polls in 1 s: " + gw.polls.get());
  }
}
