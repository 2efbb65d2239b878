package io.jobwire;

/**
 * A handler that receives the job's variables decoded into a type (a record or a bean, with
 * Jackson; {@code @JsonProperty} names are honoured). Registered with
 * {@link JobWorkerBuilder#handler(Class, TypedJobHandler)}; the worker then fetches only the
 * type's properties unless fetchVariables is set. Input that does not fit the type fails the job
 * with an {@link InvalidInputException} and never reaches the handler.
 *
 * <pre>{@code
 * record Order(@JsonProperty(required = true) String orderId, double amount) {}
 * record Receipt(String orderId, double total) {}
 *
 * client.newWorker().jobType("charge")
 *     .handler(Order.class, (job, order) -> new Receipt(order.orderId(), order.amount() * 2))
 *     .open();
 * }</pre>
 *
 * @param <T> the input type
 */
@FunctionalInterface
public interface TypedJobHandler<T> {
  /**
   * Handles one job.
   *
   * @param job the activated job
   * @param variables the job's variables decoded into the input type
   * @return variables to complete with (a record, a bean, a Map, a JSON object text) or null
   * @throws Exception any failure: the retry policy decides
   */
  Object handle(Job job, T variables) throws Exception;
}
