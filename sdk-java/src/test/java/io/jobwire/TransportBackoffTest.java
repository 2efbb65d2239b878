package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.internal.ClientConfig;
import io.jobwire.internal.worker.Backoff;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransportBackoffTest {
  @Test
  void defaultsAreTodaysAndTheBuilderSetsTheBounds() throws Exception {
    try (JobwireClient c = JobwireClient.builder().environment(Map.of()).build()) {
      assertEquals(Duration.ofMillis(50), ClientConfig.TransportBackoff.DEFAULT.initial());
    }
    ClientConfig.Input in = new ClientConfig.Input();
    assertEquals(ClientConfig.TransportBackoff.DEFAULT, ClientConfig.resolve(in, Map.of()).backoff());
    in.backoff = new ClientConfig.TransportBackoff(Duration.ofMillis(10), Duration.ofMillis(100), 2);
    ClientConfig cfg = ClientConfig.resolve(in, Map.of());
    Backoff b = new Backoff(cfg.backoff(), () -> 0.5); // no jitter
    assertEquals(10, b.next());
    assertEquals(20, b.next());
    assertEquals(40, b.next());
    assertEquals(80, b.next());
    assertEquals(100, b.next());
    assertEquals(100, b.max());
    b.reset();
    assertEquals(10, b.next());
    Backoff jittered = new Backoff(cfg.backoff(), () -> 0.0);
    assertEquals(9, jittered.next());
  }

  @Test
  void invalidBoundsAreAConfigurationError() {
    for (Object[] bad : new Object[][] {{Duration.ZERO, Duration.ofSeconds(1), 2.0}, {Duration.ofSeconds(2), Duration.ofSeconds(1), 2.0},
        {Duration.ofMillis(1), Duration.ofSeconds(1), 0.9}, {null, Duration.ofSeconds(1), 2.0}}) {
      ConfigurationException e = assertThrows(ConfigurationException.class, () -> JobwireClient.builder().environment(Map.of())
          .backoff((Duration) bad[0], (Duration) bad[1], (double) bad[2]).build());
      assertTrue(e.getMessage().startsWith("jobwire: backoff "), e.getMessage());
    }
  }
}
