package bpmn

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// parseActivityExtensions reads the zeebe extensions of a subprocess or a
// call activity.
func parseActivityExtensions(res string, el *Element, ext *xnode) error {
	el.PropagateAllChild, el.PropagateAllParent = true, true
	called := false
	if ext != nil {
		for _, e := range ext.children {
			if e.name.Space != nsZeebe {
				continue
			}
			switch {
			case e.name.Local == "ioMapping":
				if err := parseIOMapping(res, el, e); err != nil {
					return err
				}
			case e.name.Local == "properties":
			case e.name.Local == "calledElement" && el.Kind == CallActivity:
				called = true
				id := strings.TrimSpace(e.attr("processId"))
				if strings.HasPrefix(id, "=") {
					x, err := feel.Compile(id)
					if err != nil {
						return errf("'%s': zeebe:calledElement of '%s' at line %d: invalid processId expression '%s': %v", res, el.ID, e.line, id, err)
					}
					el.CalledProcessExpr = x
				}
				el.CalledProcessID = id
				switch v := e.attr("propagateAllChildVariables"); v {
				case "", "true":
				case "false":
					el.PropagateAllChild = false
				default:
					return errf("'%s': zeebe:calledElement of '%s' at line %d: propagateAllChildVariables must be true or false, got '%s'", res, el.ID, e.line, v)
				}
				switch v := e.attr("propagateAllParentVariables"); v {
				case "", "true":
				case "false":
					el.PropagateAllParent = false
				default:
					return errf("'%s': zeebe:calledElement of '%s' at line %d: propagateAllParentVariables must be true or false, got '%s'", res, el.ID, e.line, v)
				}
			default:
				return errf("'%s': %s at line %d on %s '%s' is not supported", res, e.prefixed(), e.line, kindName(el.Kind), el.ID)
			}
		}
	}
	if el.Kind == CallActivity && (!called || el.CalledProcessID == "") {
		return errf("'%s': bpmn:callActivity '%s' at line %d must have a zeebe:calledElement with a non-empty processId", res, el.ID, el.Line)
	}
	return nil
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var targetPath = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// parseIOMapping reads zeebe:ioMapping (zeebe:input, zeebe:output). A source
// starting with "=" is a FEEL expression; any other source is a static
// string, as in Zeebe.
func parseIOMapping(res string, el *Element, io *xnode) error {
	for _, m := range io.children {
		if m.name.Space != nsZeebe {
			continue
		}
		if m.name.Local != "input" && m.name.Local != "output" {
			return errf("'%s': %s at line %d in zeebe:ioMapping of '%s' is not supported (zeebe:input, zeebe:output)", res, m.prefixed(), m.line, el.ID)
		}
		target := strings.TrimSpace(m.attr("target"))
		if !targetPath.MatchString(target) {
			return errf("'%s': %s of '%s' at line %d: target '%s' is not a variable name or path (a or a.b)", res, m.prefixed(), el.ID, m.line, target)
		}
		src := strings.TrimSpace(m.attr("source"))
		var x *feel.Expr
		var err error
		switch {
		case src == "":
			x, err = feel.Compile("null")
		case strings.HasPrefix(src, "="):
			x, err = feel.Compile(src)
		default:
			x, err = feel.Compile(strconv.Quote(src))
		}
		if err != nil {
			return errf("'%s': %s of '%s' at line %d: invalid source expression '%s': %v", res, m.prefixed(), el.ID, m.line, src, err)
		}
		mp := Mapping{Source: x, Target: strings.Split(target, ".")}
		if m.name.Local == "input" {
			el.Inputs = append(el.Inputs, mp)
		} else {
			el.Outputs = append(el.Outputs, mp)
		}
	}
	return nil
}

// parseLoop reads bpmn:multiInstanceLoopCharacteristics with its
// zeebe:loopCharacteristics.
func parseLoop(res string, el *Element, loop *xnode) error {
	mi := &MultiInstance{Sequential: loop.attr("isSequential") == "true"}
	found := false
	for _, c := range loop.children {
		switch {
		case c.name.Space == nsBPMN && c.name.Local == "extensionElements":
			for _, z := range c.children {
				if z.name.Space != nsZeebe {
					continue
				}
				if z.name.Local != "loopCharacteristics" {
					return errf("'%s': %s at line %d in the multi-instance loop of '%s' is not supported", res, z.prefixed(), z.line, el.ID)
				}
				found = true
				in := strings.TrimSpace(z.attr("inputCollection"))
				if in == "" {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d must have an inputCollection", res, el.ID, z.line)
				}
				x, err := feel.Compile(in)
				if err != nil {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: invalid inputCollection '%s': %v", res, el.ID, z.line, in, err)
				}
				mi.InputCollection = x
				mi.InputElement = strings.TrimSpace(z.attr("inputElement"))
				if mi.InputElement != "" && !targetPath.MatchString(mi.InputElement) {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: inputElement '%s' is not a variable name", res, el.ID, z.line, mi.InputElement)
				}
				mi.OutputCollection = strings.TrimSpace(z.attr("outputCollection"))
				oe := strings.TrimSpace(z.attr("outputElement"))
				if (mi.OutputCollection == "") != (oe == "") {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: outputCollection and outputElement must be given together", res, el.ID, z.line)
				}
				if mi.OutputCollection != "" && !targetPath.MatchString(mi.OutputCollection) {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: outputCollection '%s' is not a variable name", res, el.ID, z.line, mi.OutputCollection)
				}
				if oe != "" {
					x, err := feel.Compile(oe)
					if err != nil {
						return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: invalid outputElement '%s': %v", res, el.ID, z.line, oe, err)
					}
					mi.OutputElement = x
					// A variable or a path (res.total): Zeebe creates its root
					// variable on each inner instance (checked against Zeebe 8.8
					// by the corpus case multi-instance-output-path).
					if name := strings.TrimSpace(strings.TrimPrefix(oe, "=")); targetPath.MatchString(name) {
						if root, _, _ := strings.Cut(name, "."); root != "null" && root != "true" && root != "false" {
							mi.OutputVariable = root
						}
					}
				}
			}
		case c.name.Space == nsBPMN && c.name.Local == "documentation":
		default:
			return unsupported(res, c)
		}
	}
	if !found {
		return errf("'%s': multi-instance activity '%s' at line %d needs a zeebe:loopCharacteristics with an inputCollection (loop cardinality is not supported, as in Zeebe)", res, el.ID, loop.line)
	}
	el.MI = mi
	return nil
}
