package feel

import (
	"encoding/json"
	"testing"
)

// FuzzUnaryTests: any input entry compiles or errors, and a compiled one
// tests any input without panicking.
func FuzzUnaryTests(f *testing.F) {
	for _, s := range []string{"-", "< 5", "[1..10]", `"a","b"`, `not("a", < 3)`, "? > 3", "odd(?)", "[1, [2..3]]",
		`{a: 1}.a`, "xs[item > 1]", "if ? then 1 else 2", "count(?) > 1", "(1..2]"} {
		f.Add(s, `3`)
		f.Add(s, `"b"`)
	}
	look := lookOf(map[string]string{"xs": `[1, 2, 3]`})
	f.Fuzz(func(t *testing.T, src, input string) {
		u, err := CompileUnaryTests(src)
		if err != nil {
			return
		}
		if !json.Valid([]byte(input)) {
			return
		}
		v, err := FromJSON([]byte(input))
		if err != nil {
			return
		}
		_, _ = u.Test(v, look)
		if e, err := Compile(src); err == nil {
			if out, err := e.Eval(look); err == nil {
				// A value holding a range has no JSON form (an error, never a panic).
				if b, err := ToJSON(out); err == nil && !json.Valid(b) {
					t.Fatalf("%q: ToJSON gave invalid JSON %q", src, b)
				}
			}
		}
	})
}
