package io.jobwire.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.InvalidVariablesException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Property-based fuzzing (jqwik) of job-variable parsing and serialization: {@link Json}. Tries per
 * property: 200 in {@code mvn test} (src/test/resources/junit-platform.properties); {@code make fuzz}
 * runs many more with {@code -Djqwik.tries.default=N}.
 */
class JsonPropertiesTest {
  private static final BigInteger U64 = BigInteger.ONE.shiftLeft(64);

  /** The type Jackson reads an integer literal as: Integer, Long or BigInteger by size. */
  static Object canonical(BigInteger n) {
    if (n.bitLength() < 32) return n.intValue();
    if (n.bitLength() < 64) return n.longValue();
    return n;
  }

  @Provide
  Arbitrary<BigInteger> int64s() {
    return Arbitraries.bigIntegers().between(U64.negate(), U64);
  }

  @Property
  void everyInt64AndUint64StaysExact(@ForAll("int64s") BigInteger n) {
    Map<String, Object> v = Json.parseObject("{\"x\":" + n + ",\"y\":[" + n + "]}");
    assertEquals(canonical(n), v.get("x"));
    assertEquals(canonical(n), ((List<?>) v.get("y")).get(0));
  }

  @Provide
  Arbitrary<Object> values() {
    Arbitrary<Object> leaf = Arbitraries.oneOf(
        Arbitraries.just(null),
        Arbitraries.of(true, false),
        Arbitraries.strings().ofMaxLength(20),
        int64s().map(JsonPropertiesTest::canonical),
        Arbitraries.bigDecimals().between(new BigDecimal("-1e12"), new BigDecimal("1e12")).ofScale(3).map(d -> (Object) d));
    return Arbitraries.recursive(() -> leaf,
        inner -> Arbitraries.oneOf(inner.list().ofMaxSize(4).map(l -> (Object) l),
            Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), inner).ofMaxSize(4).map(m -> (Object) new LinkedHashMap<>(m))),
        0, 3);
  }

  @Provide
  Arbitrary<Map<String, Object>> objects() {
    return Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), values()).ofMaxSize(5).map(LinkedHashMap::new);
  }

  @Property
  void roundTripKeepsEveryValueExact(@ForAll("objects") Map<String, Object> obj) {
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

  @Provide
  Arbitrary<String> texts() {
    // any text, and valid documents with a character inserted or removed
    Arbitrary<String> broken = Arbitraries.oneOf(objects().map(o -> Json.variablesToJson(o, "v")), Arbitraries.just("{\"a\":[1,2,{\"b\":\"c\"}]}"))
        .flatMap(doc -> Arbitraries.integers().between(0, doc.length()).flatMap(at ->
            Arbitraries.strings().ofMaxLength(2).map(ins -> doc.substring(0, at) + ins + doc.substring(Math.min(doc.length(), at + 1)))));
    return Arbitraries.oneOf(Arbitraries.strings(), broken);
  }

  @Property
  @SuppressWarnings("unused")
  void anyTextIsAMapOrATypedError(@ForAll("texts") String text) {
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

  @Property(tries = 20)
  void deepNestingIsATypedError(@ForAll @IntRange(min = 1, max = 50_000) int depth) {
    String text = "{\"a\":" + "[".repeat(depth) + "12345678901234567890" + "]".repeat(depth) + "}";
    try {
      Object v = Json.parseObject(text).get("a");
      for (int i = 0; i < depth; i++) v = ((List<?>) v).get(0);
      assertEquals(new BigInteger("12345678901234567890"), v);
    } catch (InvalidVariablesException e) {
      assertTrue(depth > 500, "rejected a document only " + depth + " levels deep: " + e.getMessage());
    }
  }

  @Example
  void nonObjectsAreRefused() {
    for (String t : List.of("[]", "1", "\"s\"", "null", "true")) {
      assertThrows(InvalidVariablesException.class, () -> Json.parseObject(t), t);
      assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(t, "v"), t);
    }
  }
}
