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
		for _, e := range ext.Children {
			if e.Name.Space != nsZeebe {
				continue
			}
			switch {
			case e.Name.Local == "ioMapping":
				if err := parseIOMapping(res, el, e); err != nil {
					return err
				}
			case e.Name.Local == "properties":
			case e.Name.Local == "calledElement" && el.Kind == CallActivity:
				called = true
				id := strings.TrimSpace(e.Attr("processId"))
				if strings.HasPrefix(id, "=") {
					x, err := feel.Compile(id)
					if err != nil {
						return errf("'%s': zeebe:calledElement of '%s' at line %d: invalid processId expression '%s': %v", res, el.ID, e.Line, id, err)
					}
					el.CalledProcessExpr = x
				}
				el.CalledProcessID = id
				switch v := e.Attr("propagateAllChildVariables"); v {
				case "", "true":
				case "false":
					el.PropagateAllChild = false
				default:
					return errf("'%s': zeebe:calledElement of '%s' at line %d: propagateAllChildVariables must be true or false, got '%s'", res, el.ID, e.Line, v)
				}
				switch v := e.Attr("propagateAllParentVariables"); v {
				case "", "true":
				case "false":
					el.PropagateAllParent = false
				default:
					return errf("'%s': zeebe:calledElement of '%s' at line %d: propagateAllParentVariables must be true or false, got '%s'", res, el.ID, e.Line, v)
				}
			default:
				return errf("'%s': %s at line %d on %s '%s' is not supported", res, prefixed(e), e.Line, kindName(el.Kind), el.ID)
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
	for _, m := range io.Children {
		if m.Name.Space != nsZeebe {
			continue
		}
		if m.Name.Local != "input" && m.Name.Local != "output" {
			return errf("'%s': %s at line %d in zeebe:ioMapping of '%s' is not supported (zeebe:input, zeebe:output)", res, prefixed(m), m.Line, el.ID)
		}
		target := strings.TrimSpace(m.Attr("target"))
		if !targetPath.MatchString(target) {
			return errf("'%s': %s of '%s' at line %d: target '%s' is not a variable name or path (a or a.b)", res, prefixed(m), el.ID, m.Line, target)
		}
		src := strings.TrimSpace(m.Attr("source"))
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
			return errf("'%s': %s of '%s' at line %d: invalid source expression '%s': %v", res, prefixed(m), el.ID, m.Line, src, err)
		}
		mp := Mapping{Source: x, Target: strings.Split(target, ".")}
		if m.Name.Local == "input" {
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
	mi := &MultiInstance{Sequential: loop.Attr("isSequential") == "true"}
	found := false
	for _, c := range loop.Children {
		switch {
		case c.Name.Space == nsBPMN && c.Name.Local == "extensionElements":
			for _, z := range c.Children {
				if z.Name.Space != nsZeebe {
					continue
				}
				if z.Name.Local != "loopCharacteristics" {
					return errf("'%s': %s at line %d in the multi-instance loop of '%s' is not supported", res, prefixed(z), z.Line, el.ID)
				}
				found = true
				in := strings.TrimSpace(z.Attr("inputCollection"))
				if in == "" {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d must have an inputCollection", res, el.ID, z.Line)
				}
				x, err := feel.Compile(in)
				if err != nil {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: invalid inputCollection '%s': %v", res, el.ID, z.Line, in, err)
				}
				mi.InputCollection = x
				mi.InputElement = strings.TrimSpace(z.Attr("inputElement"))
				if mi.InputElement != "" && !targetPath.MatchString(mi.InputElement) {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: inputElement '%s' is not a variable name", res, el.ID, z.Line, mi.InputElement)
				}
				mi.OutputCollection = strings.TrimSpace(z.Attr("outputCollection"))
				oe := strings.TrimSpace(z.Attr("outputElement"))
				if (mi.OutputCollection == "") != (oe == "") {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: outputCollection and outputElement must be given together", res, el.ID, z.Line)
				}
				if mi.OutputCollection != "" && !targetPath.MatchString(mi.OutputCollection) {
					return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: outputCollection '%s' is not a variable name", res, el.ID, z.Line, mi.OutputCollection)
				}
				if oe != "" {
					x, err := feel.Compile(oe)
					if err != nil {
						return errf("'%s': zeebe:loopCharacteristics of '%s' at line %d: invalid outputElement '%s': %v", res, el.ID, z.Line, oe, err)
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
		case c.Name.Space == nsBPMN && c.Name.Local == "documentation":
		default:
			return unsupported(res, c)
		}
	}
	if !found {
		return errf("'%s': multi-instance activity '%s' at line %d needs a zeebe:loopCharacteristics with an inputCollection (loop cardinality is not supported, as in Zeebe)", res, el.ID, loop.Line)
	}
	el.MI = mi
	return nil
}
