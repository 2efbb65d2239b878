/**
 * Declarative job workers: annotate methods of any object with {@link io.jobwire.annotation.JobWorker},
 * then start them with {@code JobwireClient.openWorkers(bean)} (or read them with
 * {@code WorkerScanner.scan(bean)}). No client is needed to declare a worker.
 *
 * <pre>{@code
 * public class OrderWorkers {
 *   @JobWorker(type = "charge", maxJobsActive = 16)
 *   public Receipt charge(@VariablesAsType Order order, @CustomHeaders OrderHeaders headers) {
 *     return new Receipt(order.orderId(), order.amount() * 2, headers.channel());
 *   }
 * }
 * }</pre>
 */
package io.jobwire.annotation;
