package io.jobwire.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared ledger and poller vectors (conformance-tests/vectors/ledger.json and poller.json, read
 * in place from the repository, never copied) against {@link Ledger} and {@link PollPlan}: every
 * case, every step.
 */
class LedgerVectorsTest {
  private static JsonNode load(String file) throws IOException {
    String rel = "conformance-tests/vectors/" + file;
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve(rel))) dir = dir.getParent();
    assertNotNull(dir, rel + " not found above " + System.getProperty("user.dir"));
    return new ObjectMapper().readTree(dir.resolve(rel).toFile());
  }

  private static JsonNode cases(JsonNode section) {
    JsonNode cs = section.path("cases");
    assertTrue(cs.isArray() && cs.size() > 0, "a section without cases");
    return cs;
  }

  private static Stream<JsonNode> stream(JsonNode array) {
    List<JsonNode> l = new ArrayList<>();
    array.forEach(l::add);
    return l.stream();
  }

  @TestFactory
  Stream<DynamicTest> ledger() throws IOException {
    return stream(cases(load("ledger.json"))).map(c -> DynamicTest.dynamicTest(c.get("name").asText(), () -> runLedgerCase(c)));
  }

  private static void runLedgerCase(JsonNode c) {
    Ledger l = new Ledger(c.get("max").asInt(), n -> {});
    Map<String, Ledger.Slot> slots = new HashMap<>();
    int i = 0;
    for (JsonNode st : c.get("steps")) {
      i++;
      String op = st.get("op").asText();
      String at = c.get("name").asText() + ": step " + i + " (" + op + ")";
      JsonNode want = st.get("want");
      switch (op) {
        case "pollWanted" -> {
          Ledger.Wanted w = l.pollWanted();
          assertEquals(want.get("free").asInt(), w.free(), at + ": free");
          assertEquals(want.get("below").asBoolean(), w.below(), at + ": below");
        }
        case "setPollDue" -> l.setPollDue(st.get("due").asBoolean());
        case "restPoll" -> l.restPoll(st.get("resting").asBoolean());
        case "reservePoll" -> assertEquals(want.asInt(), l.reservePoll(st.get("n").asInt(), st.get("parks").asBoolean()), at);
        case "takePoll" -> slot(slots, want, l.takePoll(), at);
        case "returnPoll" -> l.returnPoll();
        case "reserveStream" -> assertEquals(want.asBoolean(), l.tryReserveStream(), at);
        case "claimStream" -> slot(slots, want, l.claimStream(), at);
        case "dropStream" -> l.dropStream();
        case "release" -> {
          Ledger.Slot s = slots.get(st.get("slot").asText());
          assertNotNull(s, at + ": no slot named " + st.get("slot").asText());
          s.release();
        }
        case "check" -> {
          assertEquals(st.get("jobs").asInt(), l.jobs(), at + ": jobs");
          assertEquals(st.get("free").asInt(), l.free(), at + ": free");
        }
        default -> fail(at + ": unknown op");
      }
    }
  }

  private static void slot(Map<String, Ledger.Slot> slots, JsonNode want, Ledger.Slot got, String at) {
    if (want == null || want.isNull()) {
      assertNull(got, at + ": no slot expected");
      return;
    }
    assertNotNull(got, at + ": slot " + want.asText() + " expected");
    slots.put(want.asText(), got);
  }

  @TestFactory
  Stream<DynamicTest> plan() throws IOException {
    return stream(cases(load("poller.json").get("plan"))).map(c -> DynamicTest.dynamicTest(c.get("name").asText(), () -> {
      JsonNode in = c.get("in");
      JsonNode out = c.get("out");
      PollPlan.Decision d = PollPlan.plan(new PollPlan.Input(in.get("free").asInt(), in.get("below").asBoolean(),
          in.get("pushing").asBoolean(), in.get("backfill").asBoolean(), in.get("due").asBoolean(),
          in.get("sinceLastEndMs").asLong(), in.get("streamEnabled").asBoolean(), in.get("requestTimeoutMs").asLong()));
      assertEquals(out.get("send").asBoolean(), d.send(), "send");
      assertEquals(out.get("markDue").asBoolean(), d.markDue(), "markDue");
      if (d.send()) {
        assertEquals(out.get("ask").asInt(), d.ask(), "ask");
        assertEquals(out.get("requestTimeoutMs").asLong(), d.requestTimeoutMs(), "requestTimeoutMs");
        assertEquals(out.get("parks").asBoolean(), d.parks(), "parks");
      } else {
        JsonNode f = out.get("fairnessInMs");
        assertEquals(f == null || f.isNull() ? 0 : f.asLong(), d.fairnessInMs(), "fairnessInMs");
      }
    }));
  }

  @TestFactory
  Stream<DynamicTest> deadline() throws IOException {
    return stream(cases(load("poller.json").get("deadline"))).map(c -> DynamicTest.dynamicTest(
        "requestTimeout " + c.get("requestTimeoutMs").asLong(),
        () -> assertEquals(c.get("deadlineMs").asLong(), PollPlan.pollDeadline(c.get("requestTimeoutMs").asLong()))));
  }

  @TestFactory
  Stream<DynamicTest> emptyPause() throws IOException {
    return stream(cases(load("poller.json").get("emptyPause"))).map(c -> DynamicTest.dynamicTest(
        "requestTimeout " + c.get("requestTimeoutMs").asLong() + ", elapsed " + c.get("elapsedMs").asLong(),
        () -> assertEquals(c.get("pause").asBoolean(),
            PollPlan.emptyPollPause(c.get("requestTimeoutMs").asLong(), c.get("elapsedMs").asLong()))));
  }

  @TestFactory
  Stream<DynamicTest> afterPoll() throws IOException {
    return stream(cases(load("poller.json").get("afterPoll"))).map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
      JsonNode first = c.get("firstJobMs");
      PollPlan.After a = PollPlan.afterPoll(c.get("pushing").asBoolean(), c.get("failed").asBoolean(), c.get("asked").asInt(),
          c.get("got").asInt(), c.get("backfill").asBoolean(), c.get("parks").asBoolean(),
          first == null || first.isNull() ? -1 : first.asLong());
      assertEquals(c.get("due").asBoolean(), a.due(), "due");
      assertEquals(c.get("stall").asBoolean(), a.stall(), "stall");
    }));
  }
}
