package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jobwire.internal.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  public static final class Order {
    public long id;
    public BigInteger huge;
    public String name;
  }

  @Test
  void integersStayExact() {
    String text = "{\"id\":1152921504606846983,\"huge\":123456789012345678901234567890,\"small\":7,\"dec\":0.1,\"name\":\"ä\"}";
    Map<String, Object> m = Json.parseObject(text);
    assertEquals(1152921504606846983L, m.get("id"));
    assertEquals(new BigInteger("123456789012345678901234567890"), m.get("huge"));
    assertEquals(7, m.get("small"));
    assertEquals(new BigDecimal("0.1"), m.get("dec"));
    assertEquals(text, Json.variablesToJson(m, "t"));
    Order o = Json.parseAs(text, Order.class);
    assertEquals(1152921504606846983L, o.id);
    assertEquals(new BigInteger("123456789012345678901234567890"), o.huge);
    assertEquals("{\"id\":1152921504606846983,\"huge\":123456789012345678901234567890,\"name\":\"ä\"}", Json.variablesToJson(o, "t"));
  }

  @Test
  void jsonTextIsPassedThroughUnchanged() {
    String text = "{ \"k\" : 9007199254740993 }";
    assertEquals(text, Json.variablesToJson(text, "t"));
    assertEquals("", Json.variablesToJson(null, "t"));
  }

  @Test
  void nonObjectsAreRejectedBeforeSending() {
    InvalidVariablesException e = assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(List.of(1, 2), "complete of job 1"));
    assertEquals(true, e.getMessage().startsWith("complete of job 1: variables must be a JSON object"), e.getMessage());
    assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson("[1]", "t"));
    assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson("{\"a\":", "t"));
    assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(42, "t"));
    Map<String, Object> nan = new LinkedHashMap<>();
    nan.put("x", Double.NaN);
    assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(nan, "t"));
    assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(new Object(), "t"));
  }

  @Test
  void aNumberTooLargeForBigDecimalIsATypedError() {
    // valid JSON, but its exponent does not fit a BigDecimal's int scale: Jackson throws
    // NumberFormatException, which must reach the caller as InvalidVariablesException (found by
    // Jazzer, JsonPropertiesTest#anyTextIsAMapOrATypedError)
    for (String n : List.of("-1844674E2073709551616", "1e2147483648", "1.5E-99999999999")) {
      String text = "{\"n\":" + n + "}";
      InvalidVariablesException e = assertThrows(InvalidVariablesException.class, () -> Json.parseObject(text), text);
      assertEquals(true, e.getMessage().startsWith("variables "), e.getMessage());
      e = assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(text, "complete of job 3"), text);
      assertEquals(true, e.getMessage().startsWith("complete of job 3: variables "), e.getMessage());
      assertThrows(InvalidVariablesException.class, () -> Json.parseAs(text, Map.class), text);
    }
  }

  @Test
  void variablesOverTheGatewayMessageLimitAreRejectedBeforeSending() {
    String near = "x".repeat(Json.MAX_VARIABLES_BYTES - 20);
    assertEquals(Json.MAX_VARIABLES_BYTES - 20 + 8, Json.variablesToJson(Map.of("v", near), "t").length());
    String over = "x".repeat(Json.MAX_VARIABLES_BYTES);
    InvalidVariablesException e = assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(Map.of("v", over), "complete of job 7"));
    assertEquals(true, e.getMessage().contains("4 MiB per message"), e.getMessage());
    assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson("{\"v\":\"" + over + "\"}", "t"));
    // multi-byte characters count as bytes, not chars
    String wide = "é".repeat(Json.MAX_VARIABLES_BYTES / 2);
    assertThrows(InvalidVariablesException.class, () -> Json.variablesToJson(Map.of("v", wide), "t"));
  }
}
