package io.jobwire.spring;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** On unless {@code jobwire.enabled=false}, or {@code jobwire.enabled} is unset and {@code camunda.client.enabled=false}. */
class JobwireEnabledCondition extends SpringBootCondition {
  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    var env = context.getEnvironment();
    Boolean jobwire = env.getProperty("jobwire.enabled", Boolean.class);
    if (jobwire != null) return jobwire ? ConditionOutcome.match("jobwire.enabled=true") : ConditionOutcome.noMatch("jobwire.enabled=false");
    Boolean camunda = env.getProperty("camunda.client.enabled", Boolean.class);
    if (Boolean.FALSE.equals(camunda)) return ConditionOutcome.noMatch("camunda.client.enabled=false");
    return ConditionOutcome.match("jobwire enabled (default)");
  }
}
