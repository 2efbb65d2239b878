package io.jobwire.internal.gateway;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.FailJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.StreamActivatedJobsRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Cross-language golden vectors (proto/testdata): decode each hex-encoded message with the
 * generated classes, check the field values listed in vectors.json, re-encode byte for byte.
 */
class GoldenVectorsTest {

  /** 2^60 + 7: beyond 2^53, so any float64 detour would lose it. */
  private static final long KEY_2_60 = (1L << 60) + 7;

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Map<String, Supplier<Message.Builder>> BUILDERS =
      Map.of(
          "gateway_protocol.ActivatedJob", ActivatedJob::newBuilder,
          "gateway_protocol.StreamActivatedJobsRequest", StreamActivatedJobsRequest::newBuilder,
          "gateway_protocol.FailJobRequest", FailJobRequest::newBuilder);

  private static Path testdata;
  private static JsonNode vectors;

  @BeforeAll
  static void loadManifest() throws IOException {
    final String dir = System.getProperty("jobwire.testdata");
    assertNotNull(dir, "system property jobwire.testdata (set by the pom) is missing");
    testdata = Path.of(dir);
    vectors = JSON.readTree(Files.readString(testdata.resolve("vectors.json")));
  }

  static Stream<String> vectorNames() throws IOException {
    loadManifest();
    final Set<String> names = new TreeSet<>();
    vectors.fieldNames().forEachRemaining(names::add);
    return names.stream();
  }

  private static byte[] bytesOf(final String name) throws IOException {
    final String file = vectors.get(name).get("file").asText();
    return HexFormat.of().parseHex(Files.readString(testdata.resolve(file)).strip());
  }

  private static Message.Builder builderFor(final String name) {
    final String type = vectors.get(name).get("message").asText();
    final Supplier<Message.Builder> builder = BUILDERS.get(type);
    assertNotNull(builder, "no generated class mapped for " + type);
    return builder.get();
  }

  private static Message decode(final String name) throws IOException {
    return builderFor(name).mergeFrom(bytesOf(name)).build();
  }

  /** Canonical encoding: fields in number order (protobuf-java's deterministic mode). */
  private static byte[] encodeDeterministic(final Message message) throws IOException {
    final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    final CodedOutputStream out = CodedOutputStream.newInstance(buffer);
    out.useDeterministicSerialization();
    message.writeTo(out);
    out.flush();
    return buffer.toByteArray();
  }

  @Test
  void manifestListsTheThreeVectors() {
    final Set<String> names = new TreeSet<>();
    vectors.fieldNames().forEachRemaining(names::add);
    assertEquals(
        Set.of("activated_job", "stream_activated_jobs_request", "fail_job_request"), names);
  }

  @ParameterizedTest
  @MethodSource("vectorNames")
  void decodesToTheManifestAndReencodesByteForByte(final String name) throws IOException {
    final byte[] wire = bytesOf(name);
    final Message message = decode(name);
    assertEquals(vectors.get(name).get("message").asText(), message.getDescriptorForType().getFullName());

    // Every field of the manifest, in proto3 JSON form (int64 as strings, enums by name).
    final JsonNode expected = vectors.get(name).get("fields");
    final String actualJson =
        JsonFormat.printer().preservingProtoFieldNames().omittingInsignificantWhitespace().print(message);
    assertEquals(expected, JSON.readTree(actualJson));

    // The generated classes know every field on the wire.
    assertTrue(message.getUnknownFields().asMap().isEmpty(), "unknown fields decoded");

    assertArrayEquals(wire, message.toByteArray());
    assertArrayEquals(wire, encodeDeterministic(message));

    // Building the message afresh from the manifest gives the same bytes.
    final Message.Builder rebuilt = builderFor(name);
    JsonFormat.parser().merge(JSON.writeValueAsString(expected), rebuilt);
    assertArrayEquals(wire, rebuilt.build().toByteArray());
  }

  @ParameterizedTest
  @MethodSource("vectorNames")
  void truncatedVectorDoesNotDecode(final String name) throws IOException {
    final byte[] wire = bytesOf(name);
    final byte[] truncated = java.util.Arrays.copyOf(wire, wire.length - 1);
    assertThrows(
        InvalidProtocolBufferException.class, () -> builderFor(name).mergeFrom(truncated).build());
  }

  @Test
  void activatedJobFields() throws IOException {
    final ActivatedJob job = (ActivatedJob) decode("activated_job");
    assertEquals(KEY_2_60, job.getKey());
    assertEquals(new BigInteger("1152921504606846983"), BigInteger.valueOf(job.getKey()));
    assertEquals("payment-ünïcödé-💳", job.getType());
    assertEquals("payment-ünïcödé-💳".getBytes(StandardCharsets.UTF_8).length, job.getTypeBytes().size());
    assertEquals(2251799813685249L, job.getProcessInstanceKey());
    assertEquals(2251799813685250L, job.getProcessDefinitionKey());
    assertEquals(2251799813685251L, job.getElementInstanceKey());
    assertEquals("order-process", job.getBpmnProcessId());
    assertEquals(3, job.getProcessDefinitionVersion());
    assertEquals("charge_card", job.getElementId());
    assertEquals("worker-1", job.getWorker());
    assertEquals(3, job.getRetries());
    assertEquals(1763700000000L, job.getDeadline());
    assertEquals("<default>", job.getTenantId());
    assertEquals(ActivatedJob.JobKind.BPMN_ELEMENT, job.getKind());
    assertEquals(ActivatedJob.ListenerEventType.UNSPECIFIED, job.getListenerEventType());
    assertEquals(List.of("vip", "eu"), job.getTagsList());
    assertFalse(job.hasUserTask());

    final JsonNode headers = JSON.readTree(job.getCustomHeaders());
    assertEquals("visa", headers.get("method").asText());
    assertEquals("naïve café ☕", headers.get("note").asText());
    final JsonNode variables = JSON.readTree(job.getVariables());
    assertEquals(KEY_2_60, variables.get("bigId").longValue());
    assertTrue(variables.get("bigId").isIntegralNumber());
    assertEquals("Zürich", variables.get("city").asText());
    assertEquals("🚀", variables.get("emoji").asText());
  }

  @Test
  void streamActivatedJobsRequestFields() throws IOException {
    final StreamActivatedJobsRequest request =
        (StreamActivatedJobsRequest) decode("stream_activated_jobs_request");
    assertEquals("payment", request.getType());
    assertEquals("worker-1", request.getWorker());
    assertEquals(300000L, request.getTimeout());
    assertEquals(List.of("orderId", "amount"), request.getFetchVariableList());
    assertEquals(List.of("<default>"), request.getTenantIdsList());
  }

  @Test
  void failJobRequestFields() throws IOException {
    final FailJobRequest request = (FailJobRequest) decode("fail_job_request");
    assertEquals(KEY_2_60, request.getJobKey());
    assertEquals(2, request.getRetries());
    assertEquals("card declined: ошибка", request.getErrorMessage());
    assertEquals(1500L, request.getRetryBackOff());
    assertEquals(1, JSON.readTree(request.getVariables()).get("attempt").intValue());
  }

  @Test
  void changingAFieldChangesTheBytes() throws IOException {
    final FailJobRequest request = (FailJobRequest) decode("fail_job_request");
    final byte[] changed = request.toBuilder().setJobKey(KEY_2_60 + 1).build().toByteArray();
    assertFalse(java.util.Arrays.equals(bytesOf("fail_job_request"), changed));
  }

  @Test
  void generatedServiceIsTheZeebeGateway() {
    assertEquals("gateway_protocol.Gateway", GatewayGrpc.SERVICE_NAME);
    assertNotNull(GatewayGrpc.getStreamActivatedJobsMethod());
    assertEquals(
        "gateway_protocol.Gateway/StreamActivatedJobs",
        GatewayGrpc.getStreamActivatedJobsMethod().getFullMethodName());
  }
}
