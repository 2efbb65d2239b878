package io.jobwire;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The variables (or custom headers) of a job do not fit the input type of a typed handler. The
 * handler is not called; the job fails like any handler error, through the retry policy (by
 * default FailJob with retries − 1 and a back-off), so an operator can fix the variable and the
 * retry succeeds, and an incident after the last retry names the field. The message is
 * {@code jobwire: invalid input: <field>: <problem>}, several issues joined with {@code "; "}.
 * It is {@code InvalidInputError} in the other jobwire SDKs.
 */
public class InvalidInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * One problem of the input.
   *
   * @param field the variable name or dotted path ({@code order.amount}, {@code items[2].sku}); empty for the whole input
   * @param problem what is wrong ({@code missing}, {@code expected number, got string})
   */
  public record Issue(String field, String problem) {}

  private final transient List<Issue> issues;

  /** @param issues the problems (at least one) */
  public InvalidInputException(List<Issue> issues) {
    this(issues, null);
  }

  /**
   * @param issues the problems (at least one)
   * @param cause the decoding error
   */
  public InvalidInputException(List<Issue> issues, Throwable cause) {
    super(message(issues), cause);
    this.issues = List.copyOf(issues);
  }

  private static String message(List<Issue> issues) {
    return "jobwire: invalid input: "
        + issues.stream().map(i -> i.field() == null || i.field().isEmpty() ? i.problem() : i.field() + ": " + i.problem()).collect(Collectors.joining("; "));
  }

  /** @return the problems, in the order found */
  public List<Issue> issues() {
    return issues;
  }
}
