package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.jobwire.internal.worker.StatusRules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared status-code vectors (conformance-tests/vectors/status-codes.json, read from the
 * repository, never copied) against the SDK's one function per decision: {@link
 * StatusRules#classifyOutcome}, {@link JobwireException#isRetryable(Status.Code)}, {@link
 * StatusRules#activationDecision} and {@link JobwireException#fromStatus}.
 */
class VectorsTest {
  private static final String VECTORS = "conformance-tests/vectors/status-codes.json";
  private static JsonNode root;

  @BeforeAll
  static void load() throws IOException {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve(VECTORS))) dir = dir.getParent();
    assertNotNull(dir, VECTORS + " not found above " + System.getProperty("user.dir"));
    root = new ObjectMapper().readTree(dir.resolve(VECTORS).toFile());
  }

  private static Status.Code code(JsonNode c) {
    return Status.Code.valueOf(c.get("code").asText());
  }

  private static JsonNode cases(String section) {
    JsonNode cs = root.path(section).path("cases");
    assertTrue(cs.isArray() && cs.size() > 0, "section " + section + " has no cases");
    return cs;
  }

  private static String label(JsonNode c) {
    String msg = c.path("message").asText("");
    return c.get("code").asText() + (msg.isEmpty() ? "" : " \"" + msg + "\"");
  }

  /** The file's code names and numbers are gRPC's, and each section covers all 16 non-OK codes. */
  @Test
  void codesAreGrpcsAndEverySectionCoversEveryCode() {
    Set<Status.Code> all = EnumSet.allOf(Status.Code.class);
    all.remove(Status.Code.OK);
    Set<String> want = new TreeSet<>();
    all.forEach(c -> want.add(c.name()));
    Set<String> named = new TreeSet<>();
    root.get("codes").fields().forEachRemaining(e -> {
      named.add(e.getKey());
      assertEquals(Status.Code.valueOf(e.getKey()).value(), e.getValue().asInt(), "number of " + e.getKey());
    });
    assertEquals(want, named, "codes");
    for (String section : List.of("outcome", "command", "errors")) {
      Set<String> got = new TreeSet<>();
      cases(section).forEach(c -> got.add(c.get("code").asText()));
      assertEquals(want, got, "codes of section " + section);
    }
    for (String call : List.of("poll", "stream")) {
      Set<String> got = new TreeSet<>();
      cases("activation").forEach(c -> {
        if (call.equals(c.get("call").asText())) got.add(c.get("code").asText());
      });
      assertEquals(want, got, "codes of activation call " + call);
    }
  }

  @TestFactory
  List<DynamicTest> outcome() {
    List<DynamicTest> out = new ArrayList<>();
    for (JsonNode c : cases("outcome")) {
      out.add(DynamicTest.dynamicTest(label(c), () -> {
        String want = c.get("decision").asText();
        StatusRules.Outcome got = StatusRules.classifyOutcome(code(c), c.path("message").asText(""));
        assertEquals(want, got.name().toLowerCase(Locale.ROOT), "outcome after " + label(c));
      }));
    }
    return out;
  }

  @TestFactory
  List<DynamicTest> command() {
    List<DynamicTest> out = new ArrayList<>();
    for (JsonNode c : cases("command")) {
      out.add(DynamicTest.dynamicTest(label(c), () -> {
        boolean want = c.get("retryable").asBoolean();
        assertEquals(want, JobwireException.isRetryable(code(c)), "isRetryable(" + label(c) + ")");
        // and through the typed exception a failed command raises
        JobwireException e = JobwireException.fromStatus(Status.fromCode(code(c)), "CreateProcessInstance", null);
        assertEquals(want, e.isRetryable(), "fromStatus(" + label(c) + ").isRetryable()");
      }));
    }
    return out;
  }

  @TestFactory
  List<DynamicTest> activation() {
    List<DynamicTest> out = new ArrayList<>();
    for (JsonNode c : cases("activation")) {
      String call = c.get("call").asText();
      out.add(DynamicTest.dynamicTest(call + " " + label(c), () -> {
        String want = c.get("decision").asText();
        StatusRules.Activation got = StatusRules.activationDecision(StatusRules.Call.valueOf(call.toUpperCase(Locale.ROOT)), code(c));
        assertEquals(want, got.name().toLowerCase(Locale.ROOT), call + " failed with " + label(c));
      }));
    }
    return out;
  }

  @TestFactory
  List<DynamicTest> errors() {
    List<DynamicTest> out = new ArrayList<>();
    for (JsonNode c : cases("errors")) {
      out.add(DynamicTest.dynamicTest(label(c), () -> {
        String error = c.get("error").asText();
        assertTrue(error.endsWith("Error"), "vector error name " + error);
        String want = error.substring(0, error.length() - "Error".length()) + "Exception";
        JobwireException e = JobwireException.fromStatus(Status.fromCode(code(c)).withDescription("x"), null, null);
        assertEquals(want, e.getClass().getSimpleName(), "exception for " + label(c));
        assertEquals(JobwireException.class.getPackageName(), e.getClass().getPackageName());
        assertEquals(code(c), e.code());
        assertFalse(e.getClass() == JobwireException.class, "a typed subclass, not the base");
      }));
    }
    return out;
  }
}
