package bpmn

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Namespaces the parser understands.
const (
	nsBPMN  = "http://www.omg.org/spec/BPMN/20100524/MODEL"
	nsZeebe = "http://camunda.org/schema/zeebe/1.0"
)

// xnode is a parsed XML element with the line it started on, so validation
// errors can point users at the right place in their file.
type xnode struct {
	name     xml.Name
	attrs    []xml.Attr
	children []*xnode
	text     strings.Builder
	line     int
}

func (n *xnode) attr(local string) string {
	for _, a := range n.attrs {
		if a.Name.Local == local && (a.Name.Space == "" || a.Name.Space == n.name.Space) {
			return a.Value
		}
	}
	return ""
}

// prefixed gives a readable name such as "bpmn:serviceTask".
func (n *xnode) prefixed() string {
	switch n.name.Space {
	case nsBPMN:
		return "bpmn:" + n.name.Local
	case nsZeebe:
		return "zeebe:" + n.name.Local
	case "":
		return n.name.Local
	}
	return "{" + n.name.Space + "}" + n.name.Local
}

const maxDepth = 64

func parseTree(data []byte) (*xnode, error) {
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	dec.Strict = true
	var root *xnode
	var stack []*xnode
	for {
		line, _ := dec.InputPos()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("malformed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			// line was taken before reading the token: the line of its '<'.
			n := &xnode{name: t.Name, attrs: t.Attr, line: line}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("malformed XML: more than one root element at line %d", line)
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			if len(stack) >= maxDepth {
				return nil, fmt.Errorf("malformed XML: nesting deeper than %d at line %d", maxDepth, line)
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, fmt.Errorf("malformed XML: unexpected end element at line %d", line)
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("malformed XML: no root element")
	}
	if len(stack) != 0 {
		return nil, errors.New("malformed XML: unexpected end of document")
	}
	return root, nil
}
