// Command gomodzip writes a Go module's files as the module proxy serves them
// ($module/@v/$version.{zip,mod,info}), using golang.org/x/mod/zip, the
// go command's own implementation of the module zip format. The zip holds the
// module's files as committed at a revision (git), never untracked files.
//
//	go run . -repo ../../.. -rev HEAD -subdir sdk-go -version v0.1.0 -out ../../../dist/go
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the git repository's root")
	rev := flag.String("rev", "HEAD", "the git revision to package")
	subdir := flag.String("subdir", "", "the module's folder inside the repository (holds go.mod)")
	version := flag.String("version", "", "the module version, e.g. v0.1.0")
	out := flag.String("out", "", "output folder: the proxy layout $module/@v/ is created under it")
	when := flag.String("time", "", "the version's time for .info (RFC 3339; e.g. the commit time)")
	flag.Parse()
	if err := run(*repo, *rev, *subdir, *version, *out, *when); err != nil {
		fmt.Fprintln(os.Stderr, "gomodzip:", err)
		os.Exit(1)
	}
}

func run(repo, rev, subdir, version, out, when string) error {
	if subdir == "" || version == "" || out == "" || when == "" {
		return fmt.Errorf("-subdir, -version, -out and -time are required")
	}
	gomod, err := exec.Command("git", "-C", repo, "show", rev+":"+subdir+"/go.mod").Output()
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return fmt.Errorf("%s/go.mod names no module", subdir)
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(mv.Path, mv.Version); err != nil {
		return err
	}
	esc, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	zf, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromVCS(zf, mv, repo, rev, subdir); err != nil {
		zf.Close()
		return err
	}
	if err := zf.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".mod"), gomod, 0o644); err != nil {
		return err
	}
	info, _ := json.Marshal(struct{ Version, Time string }{version, when})
	if err := os.WriteFile(filepath.Join(at, version+".info"), append(info, '\n'), 0o644); err != nil {
		return err
	}
	// the proxy's version list (the go command asks for it when it resolves a
	// package path to its module)
	return os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644)
}
