package io.jobwire;

import java.util.List;

/**
 * Result of {@link JobwireClient#evaluateDecision(String, Object)}: the decision's output and
 * every decision evaluated on the way. A decision that failed to evaluate is a result too (not an
 * exception): {@link #failedDecisionId()} and {@link #failureMessage()} are then set. Outputs,
 * inputs and values are JSON documents as sent by the engine (read them with any JSON library;
 * integers stay exact as long as the reader keeps them).
 *
 * <pre>{@code
 * DecisionEvaluation e = client.evaluateDecision("shipping-zone", Map.of("country", "DE")).join();
 * if (!e.failedDecisionId().isEmpty()) throw new IllegalStateException(e.failureMessage());
 * String zone = e.decisionOutput();   // e.g. "\"home\""
 * }</pre>
 *
 * @param decisionKey the key of the evaluated decision
 * @param decisionId its id
 * @param decisionName its name
 * @param decisionVersion its version
 * @param decisionRequirementsId the id of its decision requirements graph
 * @param decisionRequirementsKey the key of its decision requirements graph
 * @param decisionOutput the decision's output, a JSON document (empty when the evaluation failed)
 * @param evaluatedDecisions the decision and every decision it required, in evaluation order
 * @param failedDecisionId the decision that failed to evaluate, or empty
 * @param failureMessage why it failed, or empty
 * @param tenantId the tenant
 * @param decisionInstanceKey the key of this evaluation
 * @param decisionEvaluationKey the key of this evaluation (the newer name of the same key)
 */
public record DecisionEvaluation(
    long decisionKey,
    String decisionId,
    String decisionName,
    int decisionVersion,
    String decisionRequirementsId,
    long decisionRequirementsKey,
    String decisionOutput,
    List<EvaluatedDecision> evaluatedDecisions,
    String failedDecisionId,
    String failureMessage,
    String tenantId,
    long decisionInstanceKey,
    long decisionEvaluationKey) {

  /**
   * Creates the record; the lists are copied (immutable).
   *
   * @param decisionKey the key of the evaluated decision
   * @param decisionId its id
   * @param decisionName its name
   * @param decisionVersion its version
   * @param decisionRequirementsId the id of its decision requirements graph
   * @param decisionRequirementsKey the key of its decision requirements graph
   * @param decisionOutput the decision's output, a JSON document (empty when the evaluation failed)
   * @param evaluatedDecisions the decision and every decision it required, in evaluation order
   * @param failedDecisionId the decision that failed to evaluate, or empty
   * @param failureMessage why it failed, or empty
   * @param tenantId the tenant
   * @param decisionInstanceKey the key of this evaluation
   * @param decisionEvaluationKey the key of this evaluation (the newer name of the same key)
   */
  public DecisionEvaluation {
    evaluatedDecisions = List.copyOf(evaluatedDecisions);
  }

  /**
   * One decision evaluated for the result (the one asked for, or one it required).
   *
   * @param decisionKey its key
   * @param decisionId its id
   * @param decisionName its name
   * @param decisionVersion its version
   * @param decisionType {@code DECISION_TABLE} or {@code LITERAL_EXPRESSION}
   * @param decisionOutput its output, a JSON document
   * @param matchedRules the rules of a decision table that matched, in table order
   * @param evaluatedInputs the inputs of a decision table, with their values
   * @param tenantId the tenant
   * @param decisionEvaluationInstanceKey the key of this decision's part of the evaluation
   */
  public record EvaluatedDecision(
      long decisionKey,
      String decisionId,
      String decisionName,
      int decisionVersion,
      String decisionType,
      String decisionOutput,
      List<MatchedRule> matchedRules,
      List<EvaluatedInput> evaluatedInputs,
      String tenantId,
      String decisionEvaluationInstanceKey) {

    /**
     * Creates the record; the lists are copied (immutable).
     *
     * @param decisionKey its key
     * @param decisionId its id
     * @param decisionName its name
     * @param decisionVersion its version
     * @param decisionType {@code DECISION_TABLE} or {@code LITERAL_EXPRESSION}
     * @param decisionOutput its output, a JSON document
     * @param matchedRules the rules of a decision table that matched, in table order
     * @param evaluatedInputs the inputs of a decision table, with their values
     * @param tenantId the tenant
     * @param decisionEvaluationInstanceKey the key of this decision's part of the evaluation
     */
    public EvaluatedDecision {
      matchedRules = List.copyOf(matchedRules);
      evaluatedInputs = List.copyOf(evaluatedInputs);
    }
  }

  /**
   * A rule of a decision table that matched.
   *
   * @param ruleId the rule's id
   * @param ruleIndex its 1-based position in the table
   * @param evaluatedOutputs its outputs
   */
  public record MatchedRule(String ruleId, int ruleIndex, List<EvaluatedOutput> evaluatedOutputs) {
    /**
     * Creates the record; the lists are copied (immutable).
     *
     * @param ruleId the rule's id
     * @param ruleIndex its 1-based position in the table
     * @param evaluatedOutputs its outputs
     */
    public MatchedRule {
      evaluatedOutputs = List.copyOf(evaluatedOutputs);
    }
  }

  /**
   * An input of a decision table and its value.
   *
   * @param inputId the input's id
   * @param inputName its name (label)
   * @param inputValue its value, a JSON document
   */
  public record EvaluatedInput(String inputId, String inputName, String inputValue) {}

  /**
   * An output of a matched rule.
   *
   * @param outputId the output's id
   * @param outputName its name
   * @param outputValue its value, a JSON document
   */
  public record EvaluatedOutput(String outputId, String outputName, String outputValue) {}
}
