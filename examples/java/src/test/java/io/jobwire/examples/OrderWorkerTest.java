package io.jobwire.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.JobHandler;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.test.JobwireTest;
import io.jobwire.test.JobwireTestEngine;
import io.jobwire.testing.HandlerResult;
import io.jobwire.testing.HandlerResult.Outcome;
import io.jobwire.testing.TestJob;
import io.jobwire.testing.TestJobs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * OrderWorker's tests with the test kit: its handlers alone (TestJobs.runHandler, no engine), then
 * examples/bpmn/order-fulfilment.bpmn with the handlers in real workers on an engine the kit starts
 * (io.jobwire:jobwire-engine, or the binary named by -Djobwire.engine / JOBWIRE_ENGINE). `mvn test`.
 */
class OrderWorkerTest {
  static final Path BPMN = Path.of("..", "bpmn", "order-fulfilment.bpmn"); // from examples/java
  static final String GOOD_CARD = "4242424242424242";

  static JobHandler handler(String jobType) {
    return OrderWorker.handlers().get(jobType);
  }

  @Nested
  class Handlers {
    @Test
    void paymentCompletesWithAPaymentId() {
      TestJob job = TestJob.builder().jobType("payment").variables(Map.of("orderId", "A-1", "card", GOOD_CARD)).build();
      HandlerResult result = TestJobs.runHandler(handler("payment"), job);
      assertEquals(Outcome.COMPLETED, result.outcome());
      assertEquals(Map.of("paid", true, "paymentId", "pay-A-1"), result.variables());
    }

    @Test
    void aDeclinedCardThrowsPaymentDeclined() {
      TestJob job = TestJob.builder().jobType("payment")
          .variables(Map.of("orderId", "A-2", "card", OrderWorker.DECLINED_CARD)).build();
      HandlerResult result = TestJobs.runHandler(handler("payment"), job);
      assertEquals(Outcome.BPMN_ERROR, result.outcome());
      assertEquals("PAYMENT_DECLINED", result.errorCode());
      assertEquals("card declined", result.errorMessage());
      assertEquals(Map.of("declineReason", "insufficient funds"), result.variables());
    }

    @Test
    void aJobWithoutAnOrderIdFailsWithOneRetryLess() {
      TestJob job = TestJob.builder().jobType("payment").retries(3).variables(Map.of("card", GOOD_CARD)).build();
      HandlerResult result = TestJobs.runHandler(handler("payment"), job);
      assertEquals(Outcome.FAILED, result.outcome());
      assertEquals(2, result.retries());
      assertInstanceOf(IllegalArgumentException.class, result.exception());
      assertTrue(result.errorMessage().contains("orderId"), result.errorMessage());
    }

    @Test
    void shippingAndNotifyCustomerReadTheirTaskHeaders() {
      TestJob ship = TestJob.builder().jobType("shipping").key(42).customHeaders(Map.of("method", "express")).build();
      assertEquals(Map.of("shippingMethod", "express", "trackingNumber", "TRK-42"),
          TestJobs.runHandler(handler("shipping"), ship).variables());
      TestJob notify = TestJob.builder().jobType("notify-customer").customHeader("template", "order-confirmed").build();
      assertEquals(Map.of("notified", "order-confirmed"), TestJobs.runHandler(handler("notify-customer"), notify).variables());
    }
  }

  @Nested
  @JobwireTest
  class Process {
    final List<JobWorker> workers = new ArrayList<>();

    @BeforeEach
    void deploy(JobwireTestEngine engine) {
      assertEquals(List.of("order-fulfilment"), engine.deploy(BPMN));
    }

    @AfterEach
    void closeWorkers() {
      workers.forEach(JobWorker::close);
    }

    /** OrderWorker's handlers in workers on the injected client, except those of {@code skip}. */
    void openWorkers(JobwireClient client, String... skip) throws Exception {
      for (Map.Entry<String, JobHandler> e : OrderWorker.handlers().entrySet()) {
        if (!List.of(skip).contains(e.getKey())) {
          workers.add(client.newWorker().jobType(e.getKey()).handler(e.getValue()).open());
        }
      }
    }

    @Test
    void aPaidOrderOver100ShipsExpressAndIsConfirmed(JobwireTestEngine engine, JobwireClient client) throws Exception {
      openWorkers(client);
      long order = engine.createInstance("order-fulfilment", Map.of("orderId", "B-1", "amount", 150, "card", GOOD_CARD));
      Map<String, Object> variables = engine.awaitCompleted(order);
      assertEquals("pay-B-1", variables.get("paymentId"));
      assertEquals(true, variables.get("reserved"));
      assertEquals("express", variables.get("shippingMethod"));
      assertEquals("order-confirmed", variables.get("notified"));
    }

    @Test
    void aDeclinedOrderTellsTheCustomer(JobwireTestEngine engine, JobwireClient client) throws Exception {
      openWorkers(client);
      long order = engine.createInstance("order-fulfilment",
          Map.of("orderId", "B-2", "amount", 20, "card", OrderWorker.DECLINED_CARD));
      Map<String, Object> variables = engine.awaitCompleted(order);
      assertEquals("payment-declined", variables.get("notified"));
      assertFalse(variables.containsKey("paid"), variables.toString());
      assertFalse(variables.containsKey("shippingMethod"), variables.toString());
    }

    @Test
    void completeJobsStandsInForThePaymentWorker(JobwireTestEngine engine, JobwireClient client) throws Exception {
      openWorkers(client, "payment");
      long order = engine.createInstance("order-fulfilment", Map.of("orderId", "B-3", "amount", 20, "card", GOOD_CARD));
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (engine.jobs("payment").isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(10); // until the engine created the payment job
      }
      assertEquals(1, engine.completeJobs("payment", Map.of("paid", true, "paymentId", "pay-by-the-test")));
      Map<String, Object> variables = engine.awaitCompleted(order);
      assertEquals("pay-by-the-test", variables.get("paymentId"));
      assertEquals("standard", variables.get("shippingMethod"));
      assertEquals("order-confirmed", variables.get("notified"));
    }
  }
}
