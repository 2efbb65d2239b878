package io.jobwire.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.JobErrorException;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.WorkerDefinition;
import io.jobwire.test.Incident;
import io.jobwire.test.JobwireTest;
import io.jobwire.test.JobwireTestEngine;
import io.jobwire.testing.HandlerResult;
import io.jobwire.testing.TestJob;
import io.jobwire.testing.TestJobs;
import java.nio.file.Path;
import java.time.Duration;
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

  /** The handlers are plain methods: call them. */
  @Nested
  class Handlers {
    final OrderWorker.Handlers handlers = new OrderWorker.Handlers();

    @Test
    void paymentCompletesWithAPaymentId() {
      assertEquals(Map.of("paid", true, "paymentId", "pay-A-1"), handlers.payment(new OrderWorker.PaymentInput("A-1", GOOD_CARD, null)));
    }

    @Test
    void aDeclinedCardThrowsPaymentDeclined() {
      JobErrorException e = assertThrows(JobErrorException.class,
          () -> handlers.payment(new OrderWorker.PaymentInput("A-2", OrderWorker.DECLINED_CARD, null)));
      assertEquals("PAYMENT_DECLINED", e.code());
      assertEquals("card declined", e.getMessage());
      assertEquals(Map.of("declineReason", "insufficient funds"), e.variables());
    }

    @Test
    void shippingAndNotifyCustomerReadTheirTaskHeaders() {
      TestJob ship = TestJob.builder().jobType("shipping").key(42).customHeaders(Map.of("method", "express")).build();
      HandlerResult r = TestJobs.runHandler(job -> handlers.shipping(job, new OrderWorker.ShippingHeaders(job.customHeaders().get("method"))), ship);
      assertEquals(Map.of("shippingMethod", "express", "trackingNumber", "TRK-42"), r.variables());
      assertEquals(Map.of("notified", "order-confirmed"), handlers.notifyCustomer(Map.of("template", "order-confirmed")));
      // one worker per @JobWorker method
      assertEquals(List.of("inventory", "notify-customer", "payment", "shipping"), List.copyOf(OrderWorker.definitions().keySet()));
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

    /** OrderWorker's workers on the injected client, except those of {@code skip}. */
    void openWorkers(JobwireClient client, String... skip) throws Exception {
      for (Map.Entry<String, WorkerDefinition> e : OrderWorker.definitions().entrySet()) {
        if (!List.of(skip).contains(e.getKey())) workers.add(e.getValue().builder(client).open());
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

    /** Invalid input is retried with back-off (1 s, 2 s), then the incident names the field. */
    @Test
    void anOrderWithoutAnOrderIdEndsInAnIncidentNamingTheField(JobwireTestEngine engine, JobwireClient client) throws Exception {
      openWorkers(client);
      long order = engine.createInstance("order-fulfilment", Map.of("amount", 20, "card", GOOD_CARD));
      Incident incident = engine.awaitIncident(order, Duration.ofSeconds(20));
      assertTrue(incident.message().contains("jobwire: invalid input: orderId: missing"), incident.message());
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
