package io.jobwire.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Status;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The resend rule of docs/worker-semantics.md ("Client commands: which are resent"), for every status code. */
class CommandResendTest {
  static Set<Status.Code> resentAfter(Predicate<Status.Code> rule) {
    Set<Status.Code> out = EnumSet.noneOf(Status.Code.class);
    for (Status.Code c : Status.Code.values()) if (rule.test(c)) out.add(c);
    return out;
  }

  @Test
  void evaluateDecisionIsResentAfterUnavailableAndResourceExhaustedOnly() {
    assertEquals(EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED), resentAfter(CommandResend::evaluateDecision));
  }

  @Test
  void theStateChangingCommandsAreResentAfterResourceExhaustedOnly() {
    Set<Status.Code> only = EnumSet.of(Status.Code.RESOURCE_EXHAUSTED);
    assertEquals(only, resentAfter(CommandResend::modifyProcessInstance), "ModifyProcessInstance");
    assertEquals(only, resentAfter(CommandResend::migrateProcessInstance), "MigrateProcessInstance");
    assertEquals(only, resentAfter(CommandResend::deleteResource), "DeleteResource");
    assertEquals(only, resentAfter(CommandResend::broadcastSignal), "BroadcastSignal");
  }
}
