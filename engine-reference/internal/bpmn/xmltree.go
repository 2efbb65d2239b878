package bpmn

import "github.com/jobwire/jobwire/engine-reference/internal/xmltree"

// Namespaces the parser understands.
const (
	nsBPMN  = "http://www.omg.org/spec/BPMN/20100524/MODEL"
	nsZeebe = "http://camunda.org/schema/zeebe/1.0"
)

// xnode is a parsed XML element with the line it started on, so validation
// errors can point users at the right place in their file.
type xnode = xmltree.Node

// prefixed gives a readable name such as "bpmn:serviceTask".
func prefixed(n *xnode) string {
	switch n.Name.Space {
	case nsBPMN:
		return "bpmn:" + n.Name.Local
	case nsZeebe:
		return "zeebe:" + n.Name.Local
	case "":
		return n.Name.Local
	}
	return "{" + n.Name.Space + "}" + n.Name.Local
}

const maxDepth = 64

func parseTree(data []byte) (*xnode, error) { return xmltree.Parse(data, maxDepth) }
