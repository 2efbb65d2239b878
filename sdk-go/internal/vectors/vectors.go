// Package vectors finds the shared test vectors of conformance-tests/vectors
// (one file for all four SDKs, read in place) for this module's tests.
package vectors

import (
	"errors"
	"os"
	"path/filepath"
)

// Read returns the path and the bytes of conformance-tests/vectors/<name>,
// found in the first folder above the working directory that holds it.
func Read(name string) (string, []byte, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", nil, err
	}
	for {
		p := filepath.Join(dir, "conformance-tests", "vectors", name)
		if b, err := os.ReadFile(p); err == nil {
			return p, b, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil, errors.New("conformance-tests/vectors/" + name + " not found above the test directory")
		}
		dir = parent
	}
}
