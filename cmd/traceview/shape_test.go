package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function in this package may be, counting
// from its "func" line to its closing brace: issue 28 ("no function in cmd
// over 120 lines"), so that a command's RunE stays a thin parse-and-render
// and its work lives in the packages it calls.
const maxFuncLines = 120

// TestFunctionLength fails on any function or method of the command's
// non-test files longer than maxFuncLines.
func TestFunctionLength(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			checked++
			from := fset.Position(fd.Pos()).Line
			to := fset.Position(fd.End()).Line
			if n := to - from + 1; n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines (at most %d)", name, from, fd.Name.Name, n, maxFuncLines)
			}
		}
	}
	// The package has well over 100 functions; a glob that found none
	// (run from another directory) must not pass.
	if checked < 100 {
		t.Fatalf("checked %d functions: not run in cmd/traceview?", checked)
	}
}
