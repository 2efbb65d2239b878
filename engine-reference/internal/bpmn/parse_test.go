package bpmn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFlowModel(t *testing.T) {
	b, err := os.ReadFile("../engine/testdata/flow.bpmn")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := Parse("flow.bpmn", b)
	if err != nil {
		t.Fatal(err)
	}
	p := procs[0]
	if p.ID != "flow" || p.Start.ID != "start" {
		t.Fatalf("process %+v", p)
	}
	b2 := p.Elements["b"]
	if b2.Kind != ServiceTask || b2.JobType != "b" || b2.Retries != 3 || len(b2.Boundaries) != 1 || b2.Boundaries[0].ErrorCode != "BAD" {
		t.Fatalf("task b %+v", b2)
	}
	if p.Elements["a"].Retries != 1 || p.Elements["xor"].DefaultFlow != "toLow" || p.Flows["toHigh"].Condition == nil {
		t.Fatal("attributes not parsed")
	}
}

func TestParseErrorsNameElementAndLine(t *testing.T) {
	cases := map[string]string{
		`<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process id="p">
<bpmn:startEvent id="s"><bpmn:timerEventDefinition/></bpmn:startEvent></bpmn:process></bpmn:definitions>`: "line 2",
		`<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process id="p">
<bpmn:startEvent id="s"/>
<bpmn:userTask id="u"/></bpmn:process></bpmn:definitions>`: "bpmn:userTask (id 'u') at line 3",
		`<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process id="p"></bpmn:process></bpmn:definitions>`: "exactly one none start event",
		`<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process id="p"><bpmn:startEvent id="s"/>
<bpmn:sequenceFlow id="f" sourceRef="s" targetRef="nowhere"/></bpmn:process></bpmn:definitions>`: "targetRef 'nowhere'",
		`<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process id="p"><bpmn:startEvent id="s"/>
<bpmn:exclusiveGateway id="x"/><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="x"/>
<bpmn:sequenceFlow id="g" sourceRef="x" targetRef="e"><bpmn:conditionExpression>= a &gt;&gt; 1</bpmn:conditionExpression></bpmn:sequenceFlow>
<bpmn:endEvent id="e"/></bpmn:process></bpmn:definitions>`: "invalid condition",
		`<x/>`:       "bpmn:definitions",
		`<a><b></a>`: "malformed XML",
		``:           "malformed XML",
	}
	for src, want := range cases {
		_, err := Parse("t.bpmn", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want error containing %q, got %v", src, want, err)
		}
	}
}

// FuzzParseBPMN: the parser must never panic and either return processes
// that satisfy the model's invariants or an error.
func FuzzParseBPMN(f *testing.F) {
	for _, name := range []string{"flow.bpmn", "one-task.bpmn", "cond.bpmn"} {
		if b, err := os.ReadFile("../engine/testdata/" + name); err == nil {
			f.Add(b)
		}
	}
	// The corpus's files exercise subprocesses, call activities, mappings,
	// multi-instance, inclusive gateways and events.
	if seeds, err := filepath.Glob("../../corpus/*/*.bpmn"); err == nil {
		for _, name := range seeds {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		procs, err := Parse("fuzz.bpmn", data)
		if err != nil {
			return
		}
		for _, p := range procs {
			if (p.Start == nil && len(p.MessageStarts)+len(p.TimerStarts)+len(p.SignalStarts) == 0) || (p.Start != nil && p.Start.Kind != StartEvent) {
				t.Fatalf("process %s without start", p.ID)
			}
			for _, fl := range p.Flows {
				if p.Elements[fl.Source] == nil || p.Elements[fl.Target] == nil {
					t.Fatalf("dangling flow %s", fl.ID)
				}
			}
			for _, el := range p.Elements {
				if el.Kind == ServiceTask && el.JobType == "" {
					t.Fatalf("task %s without type", el.ID)
				}
				if el.Kind == SubProcess && (el.Start == nil || el.Start.Parent != el) {
					t.Fatalf("subprocess %s without its start event", el.ID)
				}
				if el.Kind == CallActivity && el.CalledProcessID == "" {
					t.Fatalf("call activity %s without process id", el.ID)
				}
				if el.MI != nil && (el.MI.InputCollection == nil || !el.IsActivity()) {
					t.Fatalf("multi-instance %s without input collection", el.ID)
				}
				for _, fl := range el.Outgoing {
					if p.Elements[fl.Target].Parent != el.Parent {
						t.Fatalf("flow %s leaves the scope of %s", fl.ID, el.ID)
					}
				}
			}
		}
	})
}
