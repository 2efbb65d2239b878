package bpmn

import (
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// BusinessRuleTask is a business rule task that calls a decision
// (zeebe:calledDecision). One with a zeebe:taskDefinition instead is a job
// worker task and parses as a ServiceTask, as Zeebe treats it.
const BusinessRuleTask Kind = 100

// CalledDecision is zeebe:calledDecision.
type CalledDecision struct {
	DecisionID     string     // static id, when DecisionIDExpr is nil
	DecisionIDExpr *feel.Expr // id given as "= expression"
	ResultVariable string
}

func parseBusinessRuleTask(res string, el *Element, ext *xnode) error {
	var called, taskDef *xnode
	if ext != nil {
		for _, e := range ext.Children {
			if e.Name.Space != nsZeebe {
				continue
			}
			switch e.Name.Local {
			case "calledDecision":
				called = e
			case "taskDefinition":
				taskDef = e
			}
		}
	}
	switch {
	case called != nil && taskDef != nil:
		return errf("'%s': bpmn:businessRuleTask '%s' at line %d has both zeebe:calledDecision and zeebe:taskDefinition; use one", res, el.ID, el.Line)
	case taskDef != nil:
		el.Kind = ServiceTask
		el.Retries = 3
		return parseTaskExtensions(res, el, ext)
	case called == nil:
		return errf("'%s': bpmn:businessRuleTask '%s' at line %d must have a zeebe:calledDecision (decisionId, resultVariable) or a zeebe:taskDefinition", res, el.ID, el.Line)
	}
	el.Kind = BusinessRuleTask
	cd := &CalledDecision{DecisionID: strings.TrimSpace(called.Attr("decisionId")), ResultVariable: strings.TrimSpace(called.Attr("resultVariable"))}
	if cd.DecisionID == "" {
		return errf("'%s': zeebe:calledDecision of '%s' at line %d must have a non-empty decisionId", res, el.ID, called.Line)
	}
	if cd.ResultVariable == "" {
		return errf("'%s': zeebe:calledDecision of '%s' at line %d must have a non-empty resultVariable", res, el.ID, called.Line)
	}
	if strings.HasPrefix(cd.DecisionID, "=") {
		x, err := feel.Compile(cd.DecisionID)
		if err != nil {
			return errf("'%s': zeebe:calledDecision of '%s' at line %d: invalid decisionId expression '%s': %v", res, el.ID, called.Line, cd.DecisionID, err)
		}
		cd.DecisionIDExpr = x
	}
	el.Decision = cd
	for _, e := range ext.Children {
		if e.Name.Space != nsZeebe {
			continue
		}
		switch e.Name.Local {
		case "calledDecision", "properties":
		case "ioMapping":
			if err := parseIOMapping(res, el, e); err != nil {
				return err
			}
		default:
			return errf("'%s': %s at line %d on business rule task '%s' is not supported (supported: zeebe:calledDecision, zeebe:ioMapping)", res, prefixed(e), e.Line, el.ID)
		}
	}
	return nil
}
