package io.jobwire;

import io.jobwire.internal.CommandResend;
import io.jobwire.internal.Transport;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.MigrateProcessInstanceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.MigrateProcessInstanceRequest.MappingInstruction;
import io.jobwire.internal.gateway.GatewayOuterClass.MigrateProcessInstanceRequest.MigrationPlan;
import java.util.concurrent.CompletableFuture;

/**
 * Moves a running process instance to another process definition, element by element. From
 * {@link JobwireClient#migrateProcessInstance(long)}; not thread-safe, send it once.
 *
 * <pre>{@code
 * client.migrateProcessInstance(processInstanceKey)
 *     .targetProcessDefinitionKey(v2.processDefinitionKey())
 *     .map("check-order", "check-order-v2")   // every active element needs a mapping
 *     .send()
 *     .join();
 * }</pre>
 *
 * <p>Resent only after {@code RESOURCE_EXHAUSTED} (with backoff, at most 5 attempts, within the
 * client's {@code commandTimeout}); any other error, {@code UNAVAILABLE} included, is the typed
 * exception of its status at once: the first attempt may have been applied, and a second one
 * would be refused although the migration succeeded.
 */
public final class MigrateProcessInstanceCommand {
  private final Transport transport;
  private final long processInstanceKey;
  private final MigrationPlan.Builder plan = MigrationPlan.newBuilder();
  private boolean targetSet;

  MigrateProcessInstanceCommand(Transport transport, long processInstanceKey) {
    this.transport = transport;
    this.processInstanceKey = processInstanceKey;
  }

  /**
   * The process definition to migrate to (required).
   *
   * @param processDefinitionKey the target definition's key
   * @return this
   */
  public MigrateProcessInstanceCommand targetProcessDefinitionKey(long processDefinitionKey) {
    plan.setTargetProcessDefinitionKey(processDefinitionKey);
    targetSet = true;
    return this;
  }

  /**
   * Maps an element of the instance's current definition to an element of the target.
   *
   * @param sourceElementId the element id in the current definition
   * @param targetElementId the element id in the target definition
   * @return this
   */
  public MigrateProcessInstanceCommand map(String sourceElementId, String targetElementId) {
    plan.addMappingInstructions(MappingInstruction.newBuilder().setSourceElementId(sourceElementId).setTargetElementId(targetElementId));
    return this;
  }

  /**
   * Sends the migration.
   *
   * @return completes when the engine applied it; exceptionally with a typed
   *     {@link JobwireException} ({@link NotFoundException}: no such instance or target,
   *     {@link InvalidArgumentException}: an unknown element, {@link FailedPreconditionException}:
   *     an active element left unmapped or mapped to another element type)
   * @throws IllegalStateException when no target was given (nothing is sent)
   */
  public CompletableFuture<Void> send() {
    if (!targetSet) throw new IllegalStateException("migrateProcessInstance: targetProcessDefinitionKey(...) is required");
    MigrateProcessInstanceRequest req = MigrateProcessInstanceRequest.newBuilder().setProcessInstanceKey(processInstanceKey).setMigrationPlan(plan).build();
    return CommandResend.send(transport, GatewayGrpc.getMigrateProcessInstanceMethod(), req, CommandResend::migrateProcessInstance).thenApply(r -> null);
  }
}
