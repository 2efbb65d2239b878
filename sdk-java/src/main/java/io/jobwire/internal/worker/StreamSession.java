package io.jobwire.internal.worker;

import io.grpc.ClientCall;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.stub.ClientCallStreamObserver;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.StreamActivatedJobsRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/** One StreamActivatedJobs call and its drain (control thread, except {@link #streamId}). */
final class StreamSession {
  static final int RELEASE_PENDING = 0;
  static final int RELEASED = 1;
  static final int NOT_RELEASED = 2;

  /** Response header by which a jobwire gateway names a job stream for ReleaseUnread. */
  static final Metadata.Key<String> STREAM_ID_HEADER = Metadata.Key.of("jobwire-stream-id", Metadata.ASCII_STRING_MARSHALLER);

  ClientCall<StreamActivatedJobsRequest, ActivatedJob> call;
  ClientCallStreamObserver<StreamActivatedJobsRequest> obs;
  long openedAt;
  boolean hasReservation;
  long reservedSince;
  long lastDelivery;
  boolean draining;
  boolean drainFinished;
  boolean ended;
  long drainStart;
  long drainMaxMs;
  long lastRead;
  String drainMsg;
  final List<ActivatedJob> aside = new ArrayList<>();
  ScheduledFuture<?> recycleTimer;
  final CompletableFuture<Void> drained = new CompletableFuture<>();
  /** The lease channel the call runs on (ReleaseUnread goes there too). */
  int channel;
  /** Jobs this worker took from the stream, counted on the control thread (each is run or handed back). */
  long nread;
  /** The gateway's jobwire-stream-id response header (absent on Zeebe); set on a transport thread. */
  volatile String streamId;
  /**
   * Whether the gateway hands back what this worker did not read (control thread): RELEASE_PENDING
   * until ReleaseUnread answered, RELEASED when it did, NOT_RELEASED when there is no release (no
   * stream id: Zeebe, or UNIMPLEMENTED). A job delivered after the drain finished is dropped when
   * RELEASED (the gateway hands it back), handed back by the worker when NOT_RELEASED, and held
   * until the answer while RELEASE_PENDING.
   */
  int release = RELEASE_PENDING;
  final List<ActivatedJob> late = new ArrayList<>();

  /** Wraps this session's call to note its jobwire-stream-id response header. */
  <Q, R> ClientCall<Q, R> notingStreamId(ClientCall<Q, R> call) {
    StreamSession s = this;
    return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(call) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<R>(listener) {
          @Override
          public void onHeaders(Metadata md) {
            s.streamId = md.get(STREAM_ID_HEADER);
            super.onHeaders(md);
          }
        }, headers);
      }
    };
  }
}
