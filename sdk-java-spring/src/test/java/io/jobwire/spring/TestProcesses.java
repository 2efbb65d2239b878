package io.jobwire.spring;

import io.jobwire.test.JobwireTestEngine;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/** Helpers of the starter's tests: a one-task process, and an application context on an engine. */
final class TestProcesses {
  private TestProcesses() {}

  /** A process {@code one-task-<type>} with one service task of {@code type} and these custom headers. */
  static String bpmn(String type, Map<String, String> headers) {
    String h = headers.isEmpty() ? "" : "<zeebe:taskHeaders>" + headers.entrySet().stream()
        .map(e -> "<zeebe:header key=\"" + e.getKey() + "\" value=\"" + e.getValue() + "\"/>").collect(Collectors.joining()) + "</zeebe:taskHeaders>";
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\" xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\""
        + " id=\"defs\" targetNamespace=\"http://jobwire.dev/spring\">\n"
        + "  <bpmn:process id=\"one-task-" + type + "\" isExecutable=\"true\">\n"
        + "    <bpmn:startEvent id=\"start\"/>\n"
        + "    <bpmn:sequenceFlow id=\"f1\" sourceRef=\"start\" targetRef=\"task\"/>\n"
        + "    <bpmn:serviceTask id=\"task\"><bpmn:extensionElements><zeebe:taskDefinition type=\"" + type + "\" retries=\"3\"/>" + h
        + "</bpmn:extensionElements></bpmn:serviceTask>\n"
        + "    <bpmn:sequenceFlow id=\"f2\" sourceRef=\"task\" targetRef=\"end\"/>\n"
        + "    <bpmn:endEvent id=\"end\"/>\n"
        + "  </bpmn:process>\n"
        + "</bpmn:definitions>\n";
  }

  /** Starts an application of {@code sources} (no web server) on the engine, with extra properties. */
  static ConfigurableApplicationContext run(JobwireTestEngine engine, Class<?>[] sources, String... properties) {
    String[] all = new String[properties.length + 2];
    all[0] = "jobwire.client.address=" + engine.address();
    all[1] = "spring.main.banner-mode=off";
    System.arraycopy(properties, 0, all, 2, properties.length);
    return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE).properties(all).run();
  }
}
