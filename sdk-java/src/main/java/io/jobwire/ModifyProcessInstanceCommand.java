package io.jobwire;

import io.jobwire.internal.CommandResend;
import io.jobwire.internal.Json;
import io.jobwire.internal.Transport;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.ModifyProcessInstanceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ModifyProcessInstanceRequest.ActivateInstruction;
import io.jobwire.internal.gateway.GatewayOuterClass.ModifyProcessInstanceRequest.TerminateInstruction;
import io.jobwire.internal.gateway.GatewayOuterClass.ModifyProcessInstanceRequest.VariableInstruction;
import java.util.concurrent.CompletableFuture;

/**
 * Modifies a running process instance in one step: activates elements (each with variables for
 * the new scopes) and terminates element instances. From
 * {@link JobwireClient#modifyProcessInstance(long)}; not thread-safe, send it once.
 *
 * <pre>{@code
 * client.modifyProcessInstance(processInstanceKey)
 *     .activate("review")                          // a new instance of element "review"
 *     .withVariables(Map.of("reason", "manual"))   // on the process instance
 *     .terminate(stuckElementInstanceKey)
 *     .send()
 *     .join();
 * }</pre>
 *
 * <p>Resent only after {@code RESOURCE_EXHAUSTED} (with backoff, at most 5 attempts, within the
 * client's {@code commandTimeout}); any other error, {@code UNAVAILABLE} included, is the typed
 * exception of its status at once: the first attempt may have been applied, and a second one
 * would activate the elements again.
 */
public final class ModifyProcessInstanceCommand {
  private final Transport transport;
  private final ModifyProcessInstanceRequest.Builder request;
  private ActivateInstruction.Builder current;

  ModifyProcessInstanceCommand(Transport transport, long processInstanceKey) {
    this.transport = transport;
    this.request = ModifyProcessInstanceRequest.newBuilder().setProcessInstanceKey(processInstanceKey);
  }

  /**
   * Activates a new instance of an element (in the one instance of its flow scope).
   *
   * @param elementId the element's id in the process
   * @return this
   */
  public ModifyProcessInstanceCommand activate(String elementId) {
    return activate(elementId, 0);
  }

  /**
   * Activates a new instance of an element under a chosen ancestor element instance (needed when
   * the element's flow scope has several instances).
   *
   * @param elementId the element's id in the process
   * @param ancestorElementInstanceKey the element instance to activate it in (0: the engine picks
   *     the one instance of the flow scope)
   * @return this
   */
  public ModifyProcessInstanceCommand activate(String elementId, long ancestorElementInstanceKey) {
    finishActivation();
    current = ActivateInstruction.newBuilder().setElementId(elementId).setAncestorElementInstanceKey(ancestorElementInstanceKey);
    return this;
  }

  /**
   * Variables for the last {@link #activate activated} element, set on the process instance.
   *
   * @param variables a Map, POJO or JSON object text
   * @return this
   * @throws IllegalStateException when no element was activated before
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public ModifyProcessInstanceCommand withVariables(Object variables) {
    return withVariables(variables, "");
  }

  /**
   * Variables for the last {@link #activate activated} element, set as local variables of the new
   * instance of the element {@code scopeId} (the activated element itself or one of its flow
   * scopes).
   *
   * @param variables a Map, POJO or JSON object text
   * @param scopeId the element whose instance gets the variables as local variables (empty: the
   *     process instance)
   * @return this
   * @throws IllegalStateException when no element was activated before
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public ModifyProcessInstanceCommand withVariables(Object variables, String scopeId) {
    if (current == null) throw new IllegalStateException("modifyProcessInstance: withVariables needs an activate(...) before it");
    String json = Json.variablesToJson(variables == null ? java.util.Map.of() : variables, "modifyProcessInstance");
    current.addVariableInstructions(VariableInstruction.newBuilder().setVariables(json).setScopeId(scopeId == null ? "" : scopeId));
    return this;
  }

  /**
   * Terminates an element instance (and everything inside it).
   *
   * @param elementInstanceKey the element instance
   * @return this
   */
  public ModifyProcessInstanceCommand terminate(long elementInstanceKey) {
    request.addTerminateInstructions(TerminateInstruction.newBuilder().setElementInstanceKey(elementInstanceKey));
    return this;
  }

  /**
   * Sends the modification.
   *
   * @return completes when the engine applied it; exceptionally with a typed
   *     {@link JobwireException} ({@link NotFoundException}: no such instance,
   *     {@link InvalidArgumentException}: an unknown element, ancestor or scope)
   */
  public CompletableFuture<Void> send() {
    finishActivation();
    return CommandResend.send(transport, GatewayGrpc.getModifyProcessInstanceMethod(), request.build(), CommandResend::modifyProcessInstance)
        .thenApply(r -> null);
  }

  private void finishActivation() {
    if (current != null) request.addActivateInstructions(current);
    current = null;
  }
}
