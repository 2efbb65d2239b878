package jobwire

import (
	"bufio"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The cross-language API table (docs/api.md) lists every public name of the
// package in its Go column; this test keeps the two equal in both directions.

// apiColumn returns the backticked names of the table column named col in
// docs/api.md (found by walking up from the package directory).
func apiColumn(t *testing.T, col string) []string {
	t.Helper()
	dir, _ := os.Getwd()
	var path string
	for {
		p := filepath.Join(dir, "docs", "api.md")
		if _, err := os.Stat(p); err == nil {
			path = p
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("docs/api.md not found above the package directory")
		}
		dir = up
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tick := regexp.MustCompile("`([^`]+)`")
	var names []string
	idx := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			idx = -1
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if idx < 0 {
			for i, c := range cells {
				if c == col {
					idx = i
				}
			}
			continue
		}
		if idx >= len(cells) || strings.HasPrefix(cells[idx], "---") {
			continue
		}
		for _, m := range tick.FindAllStringSubmatch(cells[idx], -1) {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s: no %s column found", path, col)
	}
	return names
}

// goIdent is a name the test checks: Name or Type.Member. Other cells
// (context.Context, int64, ...) name the language, not the package.
var goIdent = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*(\.[A-Z][A-Za-z0-9]*)?$`)

// plumbing methods that implement standard interfaces, not API of their own.
var plumbing = map[string]bool{"Error": true, "Unwrap": true, "GRPCStatus": true, "String": true}

func TestAPITableMatchesExports(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.New(pkgs["jobwire"], "github.com/jobwire/jobwire/sdk-go", 0)

	exported := map[string]bool{}               // top-level names
	members := map[string]map[string]bool{}     // type -> exported methods and fields
	wantMembers := map[string]map[string]bool{} // type -> methods the table must list
	addValues := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				if ast.IsExported(n) {
					exported[n] = true
				}
			}
		}
	}
	addValues(p.Consts)
	addValues(p.Vars)
	for _, f := range p.Funcs {
		exported[f.Name] = true
	}
	for _, ty := range p.Types {
		exported[ty.Name] = true
		addValues(ty.Consts)
		addValues(ty.Vars)
		for _, f := range ty.Funcs {
			exported[f.Name] = true
		}
		members[ty.Name] = map[string]bool{}
		wantMembers[ty.Name] = map[string]bool{}
		for _, m := range ty.Methods {
			members[ty.Name][m.Name] = true
			if !plumbing[m.Name] {
				wantMembers[ty.Name][m.Name] = true
			}
		}
		for _, spec := range ty.Decl.Specs {
			if st, ok := spec.(*ast.TypeSpec).Type.(*ast.StructType); ok {
				for _, fld := range st.Fields.List {
					for _, n := range fld.Names {
						if n.IsExported() {
							members[ty.Name][n.Name] = true
						}
					}
				}
			}
		}
	}

	listed := map[string]bool{}
	listedMembers := map[string]bool{}
	for _, n := range apiColumn(t, "Go") {
		if !goIdent.MatchString(n) {
			continue
		}
		head, member, dotted := strings.Cut(n, ".")
		listed[head] = true
		if dotted {
			listedMembers[n] = true
			if !members[head][member] {
				t.Errorf("docs/api.md lists %s, but %s has no exported method or field %s", n, head, member)
			}
		}
	}
	var missing, extra []string
	for n := range exported {
		if !listed[n] {
			missing = append(missing, n)
		}
	}
	for n := range listed {
		if !exported[n] {
			extra = append(extra, n)
		}
	}
	for ty, ms := range wantMembers {
		for m := range ms {
			if !listedMembers[ty+"."+m] {
				missing = append(missing, ty+"."+m)
			}
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("exported by package jobwire but not in the Go column of docs/api.md: %s", strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		t.Errorf("in the Go column of docs/api.md but not exported by package jobwire: %s", strings.Join(extra, ", "))
	}
}
