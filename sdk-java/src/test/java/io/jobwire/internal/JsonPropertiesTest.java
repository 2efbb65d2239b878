package io.jobwire.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jobwire.InvalidVariablesException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Coverage-guided fuzzing (Jazzer) of job-variable parsing and serialization: {@link Json}. Each
 * {@link FuzzTest} builds its values from a {@link FuzzedDataProvider}.
 *
 * <p>In {@code mvn test} (regression mode) every fuzz test runs once on an empty input and once on
 * each committed seed in src/test/resources/io/jobwire/internal/JsonPropertiesTestInputs/METHOD/.
 * With {@code JAZZER_FUZZ=1} one fuzz test (pick it with {@code -Dtest=JsonPropertiesTest#METHOD})
 * is fuzzed for {@code maxDuration}; tools/fuzz.sh ({@code make fuzz}) sets the time from
 * FUZZ_TIME. A failing input is written into that inputs directory: commit it with the fix, and it
 * stays a regression test.
 */
class JsonPropertiesTest {
  private static final BigInteger U64 = BigInteger.ONE.shiftLeft(64);

  /** The type Jackson reads an integer literal as: Integer, Long or BigInteger by size. */
  static Object canonical(BigInteger n) {
    if (n.bitLength() < 32) return n.intValue();
    if (n.bitLength() < 64) return n.longValue();
    return n;
  }

  /** An integer in [-2^64, 2^64]: every int64 and every uint64, and one past each end. */
  static BigInteger int64(FuzzedDataProvider d) {
    switch (d.consumeInt(0, 3)) {
      case 0:
        return BigInteger.valueOf(d.consumeLong()); // int64
      case 1:
        return new BigInteger(Long.toUnsignedString(d.consumeLong())); // uint64
      case 2: {
        BigInteger n = new BigInteger(1, d.consumeBytes(8)); // any magnitude below 2^64, either sign
        return d.consumeBoolean() ? n.negate() : n;
      }
      default:
        return d.consumeBoolean() ? U64 : U64.negate();
    }
  }

  static Object leaf(FuzzedDataProvider d) {
    switch (d.consumeInt(0, 4)) {
      case 0:
        return null;
      case 1:
        return d.consumeBoolean();
      case 2:
        return d.consumeString(20);
      case 3:
        return canonical(int64(d));
      default: // a decimal in [-1e12, 1e12] with three places
        return BigDecimal.valueOf(d.consumeLong(-1_000_000_000_000_000L, 1_000_000_000_000_000L), 3);
    }
  }

  /** A JSON value: a leaf, or a list or object (at most 4 entries) nested at most 3 deep. */
  static Object value(FuzzedDataProvider d, int depth) {
    int kind = depth >= 3 ? 0 : d.consumeInt(0, 2);
    if (kind == 0) return leaf(d);
    int size = d.consumeInt(0, 4);
    if (kind == 1) {
      List<Object> l = new ArrayList<>();
      for (int i = 0; i < size; i++) l.add(value(d, depth + 1));
      return l;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) m.put(d.consumeString(8), value(d, depth + 1));
    return m;
  }

  /** A variables object: at most 5 entries. */
  static Map<String, Object> object(FuzzedDataProvider d) {
    Map<String, Object> m = new LinkedHashMap<>();
    int size = d.consumeInt(0, 5);
    for (int i = 0; i < size; i++) m.put(d.consumeString(8), value(d, 0));
    return m;
  }

  @FuzzTest(maxDuration = "30s")
  void everyInt64AndUint64StaysExact(FuzzedDataProvider d) {
    BigInteger n = int64(d);
    Map<String, Object> v = Json.parseObject("{\"x\":" + n + ",\"y\":[" + n + "]}");
    assertEquals(canonical(n), v.get("x"));
    assertEquals(canonical(n), ((List<?>) v.get("y")).get(0));
  }

  @FuzzTest(maxDuration = "30s")
  void roundTripKeepsEveryValueExact(FuzzedDataProvider d) {
    Map<String, Object> obj = object(d);
    String text = Json.variablesToJson(obj, "v");
    Map<String, Object> back = Json.parseObject(text);
    // numbers keep their exact value; a decimal's trailing zeros may go (5.000 is written 5)
    assertTrue(sameJson(obj, back), () -> obj + " came back as " + back);
    // a JSON object text is passed on unchanged
    assertEquals(text, Json.variablesToJson(text, "v"));
  }

  static boolean sameJson(Object a, Object b) {
    if (a instanceof Number && b instanceof Number) {
      return new BigDecimal(a.toString()).compareTo(new BigDecimal(b.toString())) == 0;
    }
    if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
      if (!ma.keySet().equals(mb.keySet())) return false;
      for (Object k : ma.keySet()) if (!sameJson(ma.get(k), mb.get(k))) return false;
      return true;
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      if (la.size() != lb.size()) return false;
      for (int i = 0; i < la.size(); i++) if (!sameJson(la.get(i), lb.get(i))) return false;
      return true;
    }
    return java.util.Objects.equals(a, b);
  }

  /** Any text, or a valid document with one character replaced by up to two others. */
  static String text(FuzzedDataProvider d) {
    if (d.consumeBoolean()) return d.consumeRemainingAsString();
    String doc = d.consumeBoolean() ? Json.variablesToJson(object(d), "v") : "{\"a\":[1,2,{\"b\":\"c\"}]}";
    int at = d.consumeInt(0, doc.length());
    String ins = d.consumeString(2);
    return doc.substring(0, at) + ins + doc.substring(Math.min(doc.length(), at + 1));
  }

  /**
   * Any text parses to a Map or raises InvalidVariablesException; any other exception escapes
   * the test and Jazzer reports it as a finding.
   */
  @FuzzTest(maxDuration = "30s")
  void anyTextIsAMapOrATypedError(FuzzedDataProvider d) {
    String text = text(d);
    try {
      Map<String, Object> v = Json.parseObject(text);
      assertInstanceOf(Map.class, v);
    } catch (InvalidVariablesException e) {
      assertTrue(e.getMessage().contains("variables"), e.getMessage());
    }
    try {
      String out = Json.variablesToJson(text, "v");
      assertEquals(text, out); // accepted texts are sent unchanged
    } catch (InvalidVariablesException e) {
      assertTrue(e.getMessage().startsWith("v: "), e.getMessage());
    }
  }

  @FuzzTest(maxDuration = "30s")
  void deepNestingIsATypedError(FuzzedDataProvider d) {
    int depth = d.consumeInt(1, 50_000);
    String text = "{\"a\":" + "[".repeat(depth) + "12345678901234567890" + "]".repeat(depth) + "}";
    try {
      Object v = Json.parseObject(text).get("a");
      for (int i = 0; i < depth; i++) v = ((List<?>) v).get(0);
      assertEquals(new BigInteger("12345678901234567890"), v);
    } catch (InvalidVariablesException e) {
      assertTrue(depth > 500, "rejected a document only " + depth + " levels deep: " + e.getMessage());
    }
  }

  @Test
  void nonObjectsAreRefused() {
    for (String t : List.of("[]", "1", "\"s\"", "null", "true")) {
      assertThrows(InvalidVariablesException.class, () -> Json.parseObject(t), t);
      assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(t, "v"), t);
    }
  }
}
