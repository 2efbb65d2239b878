package io.jobwire;

/**
 * Code around every handler of a worker: logging, span attributes, timing, tenant context.
 * Middleware runs on the handler's thread, inside the job's span and after its slot was taken;
 * client-level middleware ({@link JobwireClient.Builder#middleware}) is outermost, then the
 * worker's ({@link JobWorkerBuilder#middleware}), each in registration order; the decoding of a
 * typed handler's input is innermost, so an {@link InvalidInputException} comes out of
 * {@link Next#proceed()} like any handler error. What a middleware returns is the handler's
 * result; what it throws fails the job like a handler error (through the retry policy). It cannot
 * release the slot or send an outcome twice: the worker does that once, after the chain returns.
 *
 * <pre>{@code
 * Middleware timing = (job, next) -> {
 *   long t0 = System.nanoTime();
 *   try {
 *     return next.proceed();
 *   } finally {
 *     log.info("job {} took {} ms", job.key(), (System.nanoTime() - t0) / 1_000_000);
 *   }
 * };
 * }</pre>
 */
@FunctionalInterface
public interface Middleware {
  /**
   * Runs around the rest of the chain.
   *
   * @param job the job
   * @param next the rest of the chain (the next middleware, then the handler)
   * @return the result (usually what {@code next.proceed()} returned)
   * @throws Exception fails the job like a handler error
   */
  Object handle(Job job, Next next) throws Exception;

  /** The rest of the chain. */
  @FunctionalInterface
  interface Next {
    /**
     * Runs the rest of the chain.
     *
     * @return the handler's result
     * @throws Exception what the rest of the chain threw
     */
    Object proceed() throws Exception;
  }
}
