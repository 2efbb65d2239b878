// Package xmltree reads an XML document into a small element tree that keeps
// the line each element starts on, so the BPMN and DMN parsers can point
// users at the right place in their files.
package xmltree

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Node is one XML element.
type Node struct {
	Name     xml.Name
	Attrs    []xml.Attr
	Children []*Node
	Text     strings.Builder
	Line     int
}

// Attr is the value of the attribute with this local name, unqualified or in
// the element's own namespace ("" when absent).
func (n *Node) Attr(local string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == local && (a.Name.Space == "" || a.Name.Space == n.Name.Space) {
			return a.Value
		}
	}
	return ""
}

// Child is the first child element with this namespace and local name, or nil.
func (n *Node) Child(ns, local string) *Node {
	for _, c := range n.Children {
		if c.Name.Space == ns && c.Name.Local == local {
			return c
		}
	}
	return nil
}

// Parse reads a whole document strictly. Nesting deeper than maxDepth, more
// than one root, or a truncated document is an error naming the line.
func Parse(data []byte, maxDepth int) (*Node, error) {
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	dec.Strict = true
	var root *Node
	var stack []*Node
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
			n := &Node{Name: t.Name, Attrs: t.Attr, Line: line}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("malformed XML: more than one root element at line %d", line)
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
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
				stack[len(stack)-1].Text.Write(t)
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
