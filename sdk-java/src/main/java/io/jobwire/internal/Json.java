package io.jobwire.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jobwire.InvalidVariablesException;
import java.util.Map;

/**
 * Lossless JSON for job variables (Jackson). Integers stay exact: int, long or BigInteger by
 * size; decimals become BigDecimal when parsed into a Map, so a round trip never changes a
 * value. Non-finite numbers are rejected when writing. A number that is valid JSON but too large
 * for Java (an exponent beyond a BigDecimal's int scale, such as {@code 1e2147483648}) is an
 * {@link InvalidVariablesException} like any other bad input: Jackson throws a bare
 * NumberFormatException for it, which the methods here wrap.
 */
public final class Json {
  private Json() {}

  /** The shared mapper: integers by size (Integer, Long, BigInteger), floats as BigDecimal. */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
          .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
          .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .build();

  /**
   * Serializes variables to a JSON object text.
   *
   * @param vars null (no variables: empty string), a JSON object text, a Map or a POJO
   * @param what used in the error message
   * @return JSON object text, or "" for null
   * @throws InvalidVariablesException when vars is not a JSON object
   */
  public static String variablesToJson(Object vars, String what) {
    if (vars == null) return "";
    if (vars instanceof CharSequence) {
      String s = vars.toString();
      JsonNode n;
      try {
        n = MAPPER.readTree(s);
      } catch (JsonProcessingException e) {
        throw new InvalidVariablesException(what + ": variables are not valid JSON: " + e.getOriginalMessage(), e);
      } catch (NumberFormatException e) {
        throw new InvalidVariablesException(what + ": " + numberTooLarge(e), e);
      }
      if (n == null || !n.isObject()) {
        throw new InvalidVariablesException(what + ": variables must be a JSON object, got " + kind(n), null);
      }
      return checkSize(s, what);
    }
    JsonNode n;
    try {
      n = MAPPER.valueToTree(vars);
    } catch (IllegalArgumentException e) {
      throw new InvalidVariablesException(what + ": variables cannot be serialized to JSON: " + e.getMessage(), e);
    }
    if (n == null || !n.isObject()) {
      throw new InvalidVariablesException(
          what + ": variables must be a JSON object (a Map or a POJO), got " + kind(n) + " from " + vars.getClass().getName(), null);
    }
    checkFinite(n, what);
    try {
      return checkSize(MAPPER.writeValueAsString(n), what);
    } catch (JsonProcessingException e) {
      throw new InvalidVariablesException(what + ": variables cannot be serialized to JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * The largest variables document sent: a gateway accepts messages of at most 4 MiB (Zeebe's
   * default maxMessageSize); 16 KiB are left for the rest of the request.
   */
  public static final int MAX_VARIABLES_BYTES = (4 << 20) - (16 << 10);

  private static String checkSize(String json, String what) {
    if (json.length() * 3L > MAX_VARIABLES_BYTES) { // cheap bound first: at most 3 bytes per UTF-16 unit
      int bytes = json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
      if (bytes > MAX_VARIABLES_BYTES) {
        throw new InvalidVariablesException(what + ": variables are " + bytes + " bytes of JSON; a gateway accepts at most "
            + MAX_VARIABLES_BYTES + " (4 MiB per message): store large payloads elsewhere and pass a reference", null);
      }
    }
    return json;
  }

  private static void checkFinite(JsonNode n, String what) {
    if (n.isDouble() || n.isFloat()) {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new InvalidVariablesException(what + ": variables contain a non-finite number (" + d + "), which JSON cannot carry", null);
      }
    } else if (n.isContainerNode()) {
      for (JsonNode c : n) checkFinite(c, what);
    }
  }

  private static String kind(JsonNode n) {
    if (n == null || n.isMissingNode()) return "nothing";
    return n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Parses a JSON object text into a Map (lossless numbers).
   *
   * @param json the text; empty means {}
   * @return the map
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String json) {
    if (json == null || json.isEmpty()) return new java.util.LinkedHashMap<>();
    try {
      Object v = MAPPER.readValue(json, Object.class);
      if (!(v instanceof Map)) throw new InvalidVariablesException("variables are not a JSON object", null);
      return (Map<String, Object>) v;
    } catch (JsonProcessingException e) {
      throw new InvalidVariablesException("variables are not valid JSON: " + e.getOriginalMessage(), e);
    } catch (NumberFormatException e) {
      throw new InvalidVariablesException(numberTooLarge(e), e);
    }
  }

  /**
   * Parses a JSON object text into a type.
   *
   * @param json the text; empty means {}
   * @param type target type
   * @param <T> target type
   * @return the value
   */
  public static <T> T parseAs(String json, Class<T> type) {
    try {
      return MAPPER.readValue(json == null || json.isEmpty() ? "{}" : json, type);
    } catch (JsonProcessingException e) {
      throw new InvalidVariablesException("variables cannot be read as " + type.getName() + ": " + e.getOriginalMessage(), e);
    } catch (NumberFormatException e) {
      throw new InvalidVariablesException(numberTooLarge(e), e);
    }
  }

  private static String numberTooLarge(NumberFormatException e) {
    return "variables contain a number too large to read exactly: " + e.getMessage();
  }

  /** @return a fresh empty object node */
  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }
}
