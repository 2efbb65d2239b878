package io.jobwire.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jobwire.JobwireException;
import io.jobwire.NotFoundException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared cases of every test kit (conformance-tests/vectors/testkit.json), each run through
 * the public kit API on the one engine of the run, reset before each case.
 */
@JobwireTest
class SharedCasesTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Path VECTORS = Path.of(System.getProperty("jobwire.vectors", "../conformance-tests/vectors"));

  @TestFactory
  Stream<DynamicTest> sharedCases(JobwireTestEngine engine) throws Exception {
    JsonNode doc = JSON.readTree(VECTORS.resolve("testkit.json").toFile());
    Stream.Builder<DynamicTest> out = Stream.builder();
    for (JsonNode c : doc.get("cases")) {
      out.add(DynamicTest.dynamicTest(c.get("name").asText(), () -> {
        engine.reset();
        run(engine, c.get("steps"));
      }));
    }
    return out.build();
  }

  @SuppressWarnings("unchecked")
  static void run(JobwireTestEngine e, JsonNode steps) throws Exception {
    Map<String, Long> instances = new HashMap<>();
    for (JsonNode s : steps) {
      if (s.has("deploy")) {
        e.deploy(VECTORS.resolve("testkit").resolve(s.get("deploy").asText()));
      } else if (s.has("create")) {
        Object vars = s.has("variables") ? JSON.convertValue(s.get("variables"), Map.class) : null;
        instances.put(s.get("as").asText(), e.createInstance(s.get("create").asText(), vars));
      } else if (s.has("advance_clock_ms")) {
        e.advanceClock(Duration.ofMillis(s.get("advance_clock_ms").asLong()));
      } else if (s.has("set_clock_from_now_ms")) {
        e.setClock(e.clock().plusMillis(s.get("set_clock_from_now_ms").asLong()));
      } else if (s.has("expect_clock_near_wall_ms")) {
        long d = Math.abs(e.clock().toEpochMilli() - Instant.now().toEpochMilli());
        assertTrue(d <= s.get("expect_clock_near_wall_ms").asLong(), "engine clock is " + d + " ms from wall time");
      } else if (s.has("await_completed")) {
        Map<String, Object> got = e.awaitCompleted(instances.get(s.get("await_completed").asText()));
        expectSubset(s, got);
      } else if (s.has("await_incident")) {
        Incident i = e.awaitIncident(instances.get(s.get("await_incident").asText()));
        if (s.has("type")) assertEquals(s.get("type").asText(), i.type());
      } else if (s.has("complete_jobs")) {
        Object vars = s.has("variables") ? JSON.convertValue(s.get("variables"), Map.class) : null;
        if (s.has("expect_error")) {
          JobwireException x = assertThrows(JobwireException.class, () -> e.completeJobs(s.get("complete_jobs").asText(), vars));
          assertEquals(s.get("expect_error").asText(), x.code().name());
        } else {
          int n = e.completeJobs(s.get("complete_jobs").asText(), vars);
          if (s.has("expect_count")) assertEquals(s.get("expect_count").asInt(), n);
        }
      } else if (s.has("jobs")) {
        assertEquals(s.get("expect_count").asInt(), e.jobs(s.get("jobs").asText()).size());
      } else if (s.has("reset")) {
        e.reset();
      } else if (s.has("expect_no_instance")) {
        long key = instances.get(s.get("expect_no_instance").asText());
        assertThrows(NotFoundException.class, () -> e.variables(key));
      } else if (s.has("fault")) {
        assertEquals("resource_exhausted", s.get("fault").asText());
        e.injectResourceExhausted(s.get("count").asInt());
      } else if (s.has("clear_faults")) {
        e.clearFaults();
      } else {
        throw new IllegalArgumentException("unknown step " + s);
      }
    }
  }

  private static void expectSubset(JsonNode step, Map<String, Object> got) {
    if (!step.has("variables")) return;
    JsonNode have = JSON.valueToTree(got);
    for (Iterator<Map.Entry<String, JsonNode>> it = step.get("variables").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      assertEquals(f.getValue(), have.get(f.getKey()), "variable " + f.getKey() + " of " + got);
    }
  }
}
