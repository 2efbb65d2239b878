package io.jobwire.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.jobwire.InvalidInputException;
import io.jobwire.InvalidInputException.Issue;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed handler input: the variables fetched for a type (Jackson's own introspection of the
 * type's properties) and the decoding of variables into it, with errors that name the field.
 * Decoding is strict where the shared mapper is lenient: no coercion between strings and numbers
 * or booleans, and a missing or null primitive is an error.
 */
public final class TypedInput {
  private TypedInput() {}

  /** The shared mapper's settings, without scalar coercion and with null primitives rejected. */
  static final ObjectMapper STRICT = ((JsonMapper) Json.MAPPER).rebuild()
      .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      // nor a number or boolean read as a string
      .withCoercionConfig(LogicalType.Textual, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
          .setCoercion(CoercionInputShape.Float, CoercionAction.Fail).setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
      .build();

  private static final Pattern MISSING_CREATOR = Pattern.compile("Missing required creator property '([^']*)'");

  /**
   * The variables a type reads: the names of its deserializable properties (record components,
   * bean setters and fields, {@code @JsonProperty} names, {@code @JsonIgnore}d ones left out).
   *
   * @param type the input type
   * @return the names, or null when the type takes any variable (a Map, a JsonNode, Object, a
   *     type with an {@code @JsonAnySetter}): then all variables are fetched
   */
  public static List<String> variableNames(Type type) {
    JavaType t = STRICT.getTypeFactory().constructType(type);
    Class<?> raw = t.getRawClass();
    if (t.isMapLikeType() || t.isContainerType() || raw == Object.class || JsonNode.class.isAssignableFrom(raw) || raw.isPrimitive()
        || raw == String.class || Number.class.isAssignableFrom(raw) || raw == Boolean.class || raw.isEnum() || raw.isInterface()) {
      return null;
    }
    BeanDescription d = STRICT.getDeserializationConfig().introspect(t);
    if (d.findAnySetterAccessor() != null) return null;
    Set<String> names = new LinkedHashSet<>();
    for (BeanPropertyDefinition p : d.findProperties()) {
      if (p.couldDeserialize() || p.hasConstructorParameter()) names.add(p.getName());
    }
    return names.isEmpty() ? null : List.copyOf(names);
  }

  /**
   * The variables as a tree (lossless numbers).
   *
   * @param json a JSON object text; empty means {}
   * @return the tree
   * @throws io.jobwire.InvalidVariablesException when the text is not JSON
   */
  public static JsonNode tree(String json) {
    if (json == null || json.isEmpty()) return Json.object();
    try {
      return Json.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new io.jobwire.InvalidVariablesException("variables are not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Decodes the variables into a type.
   *
   * @param variables the variables as a tree (an object)
   * @param type the target type
   * @param <T> the target type
   * @return the value
   * @throws InvalidInputException naming the field when the variables do not fit
   */
  public static <T> T decode(JsonNode variables, Type type) {
    JavaType t = STRICT.getTypeFactory().constructType(type);
    try {
      return STRICT.readerFor(t).readValue(variables);
    } catch (JsonProcessingException e) {
      throw invalid(e, "", variables);
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new InvalidInputException(List.of(new Issue("", String.valueOf(e.getMessage()))), e);
    }
  }

  /**
   * One variable converted to a parameter type.
   *
   * @param variables the variables as a tree
   * @param name the variable
   * @param type the parameter's type
   * @return the value; null when the variable is missing and the type not primitive
   * @throws InvalidInputException when it is missing for a primitive, or does not fit
   */
  public static Object variable(JsonNode variables, String name, Type type) {
    JavaType t = STRICT.getTypeFactory().constructType(type);
    JsonNode v = variables.get(name);
    if (v == null || v.isMissingNode()) {
      if (t.isPrimitive()) throw new InvalidInputException(List.of(new Issue(name, "missing")));
      return null;
    }
    try {
      return STRICT.readerFor(t).readValue(v);
    } catch (JsonProcessingException e) {
      throw invalid(e, name, v);
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new InvalidInputException(List.of(new Issue(name, String.valueOf(e.getMessage()))), e);
    }
  }

  /**
   * The custom headers converted to a type (header values are strings: the shared, coercing mapper reads them).
   *
   * @param headers the headers
   * @param type a Map type, or a record or bean
   * @return the value
   * @throws InvalidInputException when the headers do not fit
   */
  public static Object headers(Map<String, String> headers, Type type) {
    JavaType t = Json.MAPPER.getTypeFactory().constructType(type);
    JsonNode tree = Json.MAPPER.valueToTree(headers);
    try {
      return Json.MAPPER.readerFor(t).readValue(tree);
    } catch (JsonProcessingException e) {
      throw invalid(e, "", tree);
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new InvalidInputException(List.of(new Issue("customHeaders", String.valueOf(e.getMessage()))), e);
    }
  }

  /** The issue of a Jackson error: the path from the exception, the problem from the input at that path. */
  static InvalidInputException invalid(JsonProcessingException e, String prefix, JsonNode root) {
    StringBuilder path = new StringBuilder(prefix);
    JsonNode at = root;
    if (e instanceof JsonMappingException) {
      for (JsonMappingException.Reference r : ((JsonMappingException) e).getPath()) {
        if (r.getFieldName() != null) {
          if (path.length() > 0) path.append('.');
          path.append(r.getFieldName());
          at = at == null ? null : at.get(r.getFieldName());
        } else if (r.getIndex() >= 0) {
          path.append('[').append(r.getIndex()).append(']');
          at = at == null ? null : at.get(r.getIndex());
        }
      }
    }
    String msg = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    Matcher m = MISSING_CREATOR.matcher(msg);
    String problem;
    if (m.find()) {
      // Jackson's path usually ends at the missing property already
      String last = path.toString().replaceAll("^.*[.\\]]", "");
      if (!last.equals(m.group(1))) {
        if (path.length() > 0) path.append('.');
        path.append(m.group(1));
      }
      problem = "missing";
    } else if (at == null || at.isMissingNode()) {
      problem = "missing";
    } else if (e instanceof InvalidFormatException) {
      InvalidFormatException f = (InvalidFormatException) e;
      String want = describe(f.getTargetType());
      // a refused coercion (a number for a string) vs. a value of the right kind the type rejects (an unknown enum name)
      problem = want.equals(kind(at)) || want.startsWith("one of") ? "invalid value " + at + ", expected " + want : "expected " + want + ", got " + kind(at);
    } else if (e instanceof MismatchedInputException && ((MismatchedInputException) e).getTargetType() != null) {
      problem = "expected " + describe(((MismatchedInputException) e).getTargetType()) + ", got " + kind(at);
    } else {
      problem = firstLine(msg);
    }
    List<Issue> issues = new ArrayList<>();
    issues.add(new Issue(path.toString(), problem));
    return new InvalidInputException(issues, e);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  static String describe(Class<?> c) {
    if (c == null) return "a value";
    if (c == boolean.class || c == Boolean.class) return "boolean";
    if (c == char.class || c == Character.class || CharSequence.class.isAssignableFrom(c)) return "string";
    if (c.isPrimitive() || Number.class.isAssignableFrom(c)) return "number";
    if (c.isArray() || Collection.class.isAssignableFrom(c)) return "array";
    if (c.isEnum()) {
      List<String> names = new ArrayList<>();
      for (Object k : c.getEnumConstants()) names.add(((Enum<?>) k).name());
      return "one of " + names;
    }
    return "object";
  }

  static String kind(JsonNode n) {
    if (n.isNull()) return "null";
    if (n.isTextual()) return "string";
    if (n.isNumber()) return "number";
    if (n.isBoolean()) return "boolean";
    if (n.isArray()) return "array";
    if (n.isObject()) return "object";
    return n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
  }
}
