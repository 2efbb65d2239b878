package bpmn

import (
	"strings"
	"testing"
)

func brt(ext string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="rules"/>
    <bpmn:businessRuleTask id="rules"><bpmn:extensionElements>` + ext + `</bpmn:extensionElements></bpmn:businessRuleTask>
    <bpmn:sequenceFlow id="f2" sourceRef="rules" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`)
}

func TestBusinessRuleTask(t *testing.T) {
	procs, err := Parse("r.bpmn", brt(`<zeebe:calledDecision decisionId="risk" resultVariable="r"/>`))
	if err != nil {
		t.Fatal(err)
	}
	el := procs[0].Elements["rules"]
	if el.Kind != BusinessRuleTask || el.Decision.DecisionID != "risk" || el.Decision.ResultVariable != "r" || el.Decision.DecisionIDExpr != nil {
		t.Fatalf("%+v %+v", el, el.Decision)
	}
	procs, err = Parse("r.bpmn", brt(`<zeebe:calledDecision decisionId="= &quot;risk&quot; + suffix" resultVariable="r"/>`))
	if err != nil || procs[0].Elements["rules"].Decision.DecisionIDExpr == nil {
		t.Fatalf("expression id: %v", err)
	}
	// With a task definition it is a job worker task.
	procs, err = Parse("r.bpmn", brt(`<zeebe:taskDefinition type="rules" retries="2"/>`))
	if err != nil || procs[0].Elements["rules"].Kind != ServiceTask || procs[0].Elements["rules"].JobType != "rules" || procs[0].Elements["rules"].Retries != 2 {
		t.Fatalf("job worker form: %v", err)
	}
	for ext, want := range map[string]string{
		``: "must have a zeebe:calledDecision",
		`<zeebe:calledDecision decisionId="risk"/>`:                                                 "non-empty resultVariable",
		`<zeebe:calledDecision resultVariable="r"/>`:                                                "non-empty decisionId",
		`<zeebe:calledDecision decisionId="= a ==" resultVariable="r"/>`:                            "invalid decisionId expression",
		`<zeebe:calledDecision decisionId="a" resultVariable="r"/><zeebe:taskDefinition type="t"/>`: "has both",
		`<zeebe:calledDecision decisionId="a" resultVariable="r"/><zeebe:taskHeaders/>`:             "zeebe:taskHeaders at line 6 on business rule task 'rules' is not supported",
	} {
		_, err := Parse("r.bpmn", brt(ext))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "'r.bpmn'") {
			t.Errorf("%s: got %v, want %q", ext, err, want)
		}
	}
}
