package io.jobwire.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.jobwire.InvalidInputException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TypedInputTest {
  record Order(@JsonProperty(required = true) String orderId, double amount) {}

  record Renamed(@JsonProperty("order_id") String orderId, BigDecimal amount) {}

  record Item(String sku, int qty) {}

  record Cart(String id, List<Item> items) {}

  public static class Bean {
    private String name;
    @JsonProperty("total_amount")
    public long total;
    @JsonIgnore
    public String secret;

    public void setName(String n) {
      this.name = n;
    }

    public String getName() {
      return name;
    }
  }

  public static class Open {
    public String id;

    @JsonAnySetter
    public void other(String k, Object v) {}
  }

  @Test
  void fetchVariablesAreTheTypesPropertiesByJacksonsIntrospection() {
    assertEquals(List.of("orderId", "amount"), TypedInput.variableNames(Order.class));
    assertEquals(List.of("order_id", "amount"), TypedInput.variableNames(Renamed.class));
    assertEquals(List.of("id", "items"), TypedInput.variableNames(Cart.class));
    assertEquals(java.util.Set.of("name", "total_amount"), java.util.Set.copyOf(TypedInput.variableNames(Bean.class)));
  }

  @Test
  void typesThatTakeAnyVariableFetchAll() {
    assertNull(TypedInput.variableNames(Map.class));
    assertNull(TypedInput.variableNames(JsonNode.class));
    assertNull(TypedInput.variableNames(Object.class));
    assertNull(TypedInput.variableNames(Open.class));
  }

  static InvalidInputException invalid(String json, Class<?> type) {
    return assertThrows(InvalidInputException.class, () -> TypedInput.decode(TypedInput.tree(json), type));
  }

  @Test
  void decodesAndKeepsNumbersExact() {
    Renamed r = TypedInput.decode(TypedInput.tree("{\"order_id\":\"o1\",\"amount\":0.1000000000000000000001,\"x\":1}"), Renamed.class);
    assertEquals(new Renamed("o1", new BigDecimal("0.1000000000000000000001")), r);
  }

  @Test
  void aWrongTypeNamesTheFieldAndBothTypes() {
    InvalidInputException e = invalid("{\"orderId\":\"o1\",\"amount\":\"12\"}", Order.class);
    assertEquals("jobwire: invalid input: amount: expected number, got string", e.getMessage());
    assertEquals(List.of(new InvalidInputException.Issue("amount", "expected number, got string")), e.issues());
  }

  @Test
  void aMissingRequiredPropertyOrPrimitiveIsMissing() {
    assertEquals("jobwire: invalid input: orderId: missing", invalid("{\"amount\":1}", Order.class).getMessage());
    assertEquals("jobwire: invalid input: amount: missing", invalid("{\"orderId\":\"o1\"}", Order.class).getMessage());
    assertEquals("jobwire: invalid input: amount: expected number, got null", invalid("{\"orderId\":\"o1\",\"amount\":null}", Order.class).getMessage());
  }

  @Test
  void nestedPathsUseDotsAndIndexes() {
    InvalidInputException e = invalid("{\"id\":\"c\",\"items\":[{\"sku\":\"a\",\"qty\":1},{\"sku\":\"b\",\"qty\":true}]}", Cart.class);
    assertEquals("jobwire: invalid input: items[1].qty: expected number, got boolean", e.getMessage());
  }

  @Test
  void singleVariablesAndHeaders() {
    JsonNode vars = TypedInput.tree("{\"n\":3}");
    assertEquals(3, TypedInput.variable(vars, "n", int.class));
    assertNull(TypedInput.variable(vars, "absent", Integer.class));
    assertEquals("jobwire: invalid input: absent: missing",
        assertThrows(InvalidInputException.class, () -> TypedInput.variable(vars, "absent", int.class)).getMessage());
    assertEquals("jobwire: invalid input: n: expected array, got number",
        assertThrows(InvalidInputException.class, () -> TypedInput.variable(vars, "n", List.class)).getMessage());
    record H(String channel, int priority) {}
    assertEquals(new H("web", 2), TypedInput.headers(Map.of("channel", "web", "priority", "2"), H.class));
  }
}
