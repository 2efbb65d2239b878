// Command godoc checks the doc comments of Go packages for `make docs`: it lists
// every exported identifier without a doc comment and every doc link ([Name],
// [pkg.Name], [Type.Method]) that does not resolve, and exits 1 when it found any.
// It reads the sources with go/parser and go/doc from the standard library, the
// way `go doc` sees them (test files excluded).
//
//	go run . DIR...   (each DIR holds one package)
package main

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: godoc DIR...")
		os.Exit(2)
	}
	var problems []string
	for _, dir := range os.Args[1:] {
		p, err := check(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		problems = append(problems, p...)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Printf("%d problem(s) in the doc comments\n", len(problems))
		os.Exit(1)
	}
}

// check parses the package in dir and returns its problems, one line each,
// "file:line: what".
func check(dir string) ([]string, error) {
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, notTest, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	var name string
	for n, p := range pkgs {
		if strings.HasSuffix(n, "_test") {
			continue
		}
		if name != "" {
			return nil, fmt.Errorf("%s: more than one package (%s, %s)", dir, name, n)
		}
		name = n
		for _, f := range p.Files {
			files = append(files, f)
		}
	}
	if name == "" {
		return nil, fmt.Errorf("%s: no Go package", dir)
	}
	sort.Slice(files, func(i, j int) bool { return fset.File(files[i].Pos()).Name() < fset.File(files[j].Pos()).Name() })
	pkg, err := doc.NewFromFiles(fset, files, name)
	if err != nil {
		return nil, err
	}
	c := &checker{fset: fset, pkg: pkg, parser: pkg.Parser()}
	c.run()
	return c.problems, nil
}

type checker struct {
	fset     *token.FileSet
	pkg      *doc.Package
	parser   *comment.Parser
	problems []string
}

func (c *checker) add(pos token.Pos, format string, args ...any) {
	p := c.fset.Position(pos)
	c.problems = append(c.problems, fmt.Sprintf("%s:%d: %s", p.Filename, p.Line, fmt.Sprintf(format, args...)))
}

func (c *checker) run() {
	if strings.TrimSpace(c.pkg.Doc) == "" {
		c.problems = append(c.problems, fmt.Sprintf("package %s: no package doc comment", c.pkg.Name))
	}
	c.links(token.NoPos, "package "+c.pkg.Name, c.pkg.Doc)
	c.values(c.pkg.Consts)
	c.values(c.pkg.Vars)
	c.funcs(c.pkg.Funcs, "")
	for _, t := range c.pkg.Types {
		if ast.IsExported(t.Name) {
			if strings.TrimSpace(t.Doc) == "" {
				c.add(t.Decl.Pos(), "type %s has no doc comment", t.Name)
			}
			c.links(t.Decl.Pos(), "type "+t.Name, t.Doc)
		}
		// Constants, variables and constructors grouped under a type are
		// listed by go doc whether the type is exported or not.
		c.values(t.Consts)
		c.values(t.Vars)
		c.funcs(t.Funcs, "")
		if ast.IsExported(t.Name) {
			c.funcs(t.Methods, t.Name+".")
		}
	}
}

// values: an exported constant or variable is documented by its own comment
// or by the comment of its declaration group.
func (c *checker) values(vs []*doc.Value) {
	for _, v := range vs {
		c.links(v.Decl.Pos(), strings.Join(v.Names, ", "), v.Doc)
		if strings.TrimSpace(v.Doc) != "" {
			continue
		}
		for _, s := range v.Decl.Specs {
			vs := s.(*ast.ValueSpec)
			for _, n := range vs.Names {
				if ast.IsExported(n.Name) && vs.Doc == nil && vs.Comment == nil {
					c.add(n.Pos(), "%s %s has no doc comment", v.Decl.Tok, n.Name)
				}
			}
		}
	}
}

func (c *checker) funcs(fs []*doc.Func, prefix string) {
	for _, f := range fs {
		if !ast.IsExported(f.Name) {
			continue
		}
		if strings.TrimSpace(f.Doc) == "" {
			c.add(f.Decl.Pos(), "func %s%s has no doc comment", prefix, f.Name)
		}
		c.links(f.Decl.Pos(), prefix+f.Name, f.Doc)
	}
}

// A doc link that go/doc could not resolve stays in the text as "[Name]".
var unresolved = regexp.MustCompile(`\[\*?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\]`)

// links reports the doc links of text that do not resolve to a declaration of
// this package or of a package it imports.
func (c *checker) links(pos token.Pos, what, text string) {
	if text == "" {
		return
	}
	d := c.parser.Parse(text)
	var walk func(ts []comment.Text)
	walk = func(ts []comment.Text) {
		for _, t := range ts {
			switch t := t.(type) {
			case comment.Plain:
				for _, m := range unresolved.FindAllString(string(t), -1) {
					c.linkProblem(pos, what, m)
				}
			case *comment.Link:
				walk(t.Text)
			case *comment.DocLink:
				walk(t.Text)
			case comment.Italic:
				for _, m := range unresolved.FindAllString(string(t), -1) {
					c.linkProblem(pos, what, m)
				}
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			walk(b.Text)
		case *comment.Heading:
			walk(b.Text)
		case *comment.List:
			for _, it := range b.Items {
				for _, ib := range it.Content {
					if p, ok := ib.(*comment.Paragraph); ok {
						walk(p.Text)
					}
				}
			}
		}
	}
}

func (c *checker) linkProblem(pos token.Pos, what, link string) {
	if pos == token.NoPos {
		c.problems = append(c.problems, fmt.Sprintf("%s: doc link %s does not resolve", what, link))
		return
	}
	c.add(pos, "%s: doc link %s does not resolve", what, link)
}
