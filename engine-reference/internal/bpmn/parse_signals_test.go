package bpmn

import (
	"strings"
	"testing"
)

func defs(body string) []byte {
	return []byte(`<?xml version="1.0"?><bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" ` +
		`xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d">` + body + `</bpmn:definitions>`)
}

const gatewayTail = `<bpmn:sequenceFlow id="g1" sourceRef="gw" targetRef="a"/><bpmn:sequenceFlow id="g2" sourceRef="gw" targetRef="b"/>
<bpmn:sequenceFlow id="g3" sourceRef="a" targetRef="e"/><bpmn:sequenceFlow id="g4" sourceRef="b" targetRef="e"/><bpmn:endEvent id="e"/>`

func TestSignalAndEventParsing(t *testing.T) {
	ok := defs(`<bpmn:signal id="s" name="go"/><bpmn:signal id="s2" name="=&quot;x&quot; + y"/><bpmn:message id="m" name="msg"><bpmn:extensionElements><zeebe:subscription correlationKey="=k"/></bpmn:extensionElements></bpmn:message>
<bpmn:process id="p" isExecutable="true">
<bpmn:startEvent id="st"><bpmn:extensionElements><zeebe:ioMapping><zeebe:output source="=v" target="w"/></zeebe:ioMapping></bpmn:extensionElements><bpmn:signalEventDefinition signalRef="s"/></bpmn:startEvent>
<bpmn:sequenceFlow id="f1" sourceRef="st" targetRef="gw"/><bpmn:eventBasedGateway id="gw"/>
<bpmn:intermediateCatchEvent id="a"><bpmn:signalEventDefinition signalRef="s2"/></bpmn:intermediateCatchEvent>
<bpmn:intermediateCatchEvent id="b"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>` + gatewayTail + `</bpmn:process>`)
	procs, err := Parse("ok.bpmn", ok)
	if err != nil {
		t.Fatal(err)
	}
	p := procs[0]
	if len(p.SignalStarts) != 1 || p.SignalStarts[0].Event.SignalName != "go" || len(p.SignalStarts[0].Outputs) != 1 {
		t.Fatalf("signal start: %+v", p.SignalStarts)
	}
	if p.Elements["gw"].Kind != EventBasedGateway || p.Elements["a"].Event.SignalNameExpr == nil {
		t.Fatalf("gateway %v, FEEL signal name %+v", p.Elements["gw"].Kind, p.Elements["a"].Event)
	}
	refused := map[string]string{
		"userTask":                    `<bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="u"/><bpmn:userTask id="u"/></bpmn:process>`,
		"signalRef '' is not defined": `<bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="s"><bpmn:signalEventDefinition/></bpmn:startEvent></bpmn:process>`,
		"input mappings are not supported on catch events": `<bpmn:signal id="s" name="go"/><bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="st"/><bpmn:sequenceFlow id="f1" sourceRef="st" targetRef="c"/>
<bpmn:intermediateCatchEvent id="c"><bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="=1" target="x"/></zeebe:ioMapping></bpmn:extensionElements><bpmn:signalEventDefinition signalRef="s"/></bpmn:intermediateCatchEvent>
<bpmn:sequenceFlow id="f2" sourceRef="c" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process>`,
		"must lead to an intermediate message, timer or signal catch event": `<bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="st"/><bpmn:sequenceFlow id="f1" sourceRef="st" targetRef="gw"/><bpmn:eventBasedGateway id="gw"/>
<bpmn:serviceTask id="a"><bpmn:extensionElements><zeebe:taskDefinition type="t"/></bpmn:extensionElements></bpmn:serviceTask><bpmn:serviceTask id="b"><bpmn:extensionElements><zeebe:taskDefinition type="t"/></bpmn:extensionElements></bpmn:serviceTask>` + gatewayTail + `</bpmn:process>`,
		"wait for the same signal 'go'": `<bpmn:signal id="s" name="go"/><bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="st"/><bpmn:sequenceFlow id="f1" sourceRef="st" targetRef="gw"/><bpmn:eventBasedGateway id="gw"/>
<bpmn:intermediateCatchEvent id="a"><bpmn:signalEventDefinition signalRef="s"/></bpmn:intermediateCatchEvent><bpmn:intermediateCatchEvent id="b"><bpmn:signalEventDefinition signalRef="s"/></bpmn:intermediateCatchEvent>` + gatewayTail + `</bpmn:process>`,
		"must have at least 2 outgoing": `<bpmn:signal id="s" name="go"/><bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="st"/><bpmn:sequenceFlow id="f1" sourceRef="st" targetRef="gw"/><bpmn:eventBasedGateway id="gw"/>
<bpmn:intermediateCatchEvent id="a"><bpmn:signalEventDefinition signalRef="s"/></bpmn:intermediateCatchEvent><bpmn:sequenceFlow id="g1" sourceRef="gw" targetRef="a"/><bpmn:sequenceFlow id="g3" sourceRef="a" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process>`,
		"the same signal name 'go'": `<bpmn:signal id="s" name="go"/><bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="a"><bpmn:signalEventDefinition signalRef="s"/></bpmn:startEvent><bpmn:startEvent id="b"><bpmn:signalEventDefinition signalRef="s"/></bpmn:startEvent>
<bpmn:sequenceFlow id="g3" sourceRef="a" targetRef="e"/><bpmn:sequenceFlow id="g4" sourceRef="b" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process>`,
		"the signal name must be a literal":                    `<bpmn:signal id="s" name="=x"/><bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="a"><bpmn:signalEventDefinition signalRef="s"/></bpmn:startEvent><bpmn:sequenceFlow id="g3" sourceRef="a" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process>`,
		"exactly one of formId, formKey and externalReference": `<bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="a"><bpmn:extensionElements><zeebe:formDefinition formId="f" formKey="k"/></bpmn:extensionElements></bpmn:startEvent><bpmn:sequenceFlow id="g3" sourceRef="a" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process>`,
		"output mappings are not supported on end events":      `<bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="a"/><bpmn:sequenceFlow id="g3" sourceRef="a" targetRef="e"/><bpmn:endEvent id="e"><bpmn:extensionElements><zeebe:ioMapping><zeebe:output source="=1" target="x"/></zeebe:ioMapping></bpmn:extensionElements></bpmn:endEvent></bpmn:process>`,
	}
	for want, body := range refused {
		_, err := Parse("bad.bpmn", defs(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("expected a refusal containing %q, got %v", want, err)
		}
	}
	form := defs(`<bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="a"><bpmn:extensionElements><zeebe:formDefinition formId="order-form"/></bpmn:extensionElements></bpmn:startEvent><bpmn:sequenceFlow id="g3" sourceRef="a" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process>`)
	procs, err = Parse("form.bpmn", form)
	if err != nil || procs[0].Start.Form == nil || procs[0].Start.Form.FormID != "order-form" {
		t.Fatalf("form definition: %v %+v", err, procs)
	}
}
