package io.jobwire.examples.spring;

import io.jobwire.JobwireClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.io.ClassPathResource;
import org.springframework.stereotype.Component;

/**
 * Deploys the charge-order process at start-up with the injected {@link JobwireClient} and, when
 * {@code example.demo-orders} is above 0, places that many demo orders for the worker to charge.
 */
@Component
public class DemoOrders implements ApplicationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(DemoOrders.class);
  private final JobwireClient client;
  private final int demoOrders;

  public DemoOrders(JobwireClient client, @Value("${example.demo-orders:0}") int demoOrders) {
    this.client = client;
    this.demoOrders = demoOrders;
  }

  @Override
  public void run(ApplicationArguments args) throws Exception {
    byte[] bpmn = new ClassPathResource("charge-order.bpmn").getContentAsByteArray();
    client.deployResource("charge-order.bpmn", bpmn).get();
    LOG.info("deployed charge-order");
    List<CompletableFuture<?>> created = new ArrayList<>();
    for (int i = 0; i < demoOrders; i++) {
      created.add(client.createProcessInstance("charge-order", Map.of("orderId", "order-" + i, "amount", 10 + i % 90)));
      if (created.size() == 100) {
        CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get();
        created.clear();
      }
    }
    CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get();
    if (demoOrders > 0) LOG.info("placed {} demo orders", demoOrders);
  }
}
