package feel

import (
	"encoding/json"
	"testing"
)

func TestEvalBool(t *testing.T) {
	vars := map[string]json.RawMessage{"x": json.RawMessage(`7`), "status": json.RawMessage(`"ok"`),
		"big": json.RawMessage(`123456789012345678901234567890`), "o": json.RawMessage(`{"n":{"m":2}}`), "f": json.RawMessage(`false`)}
	look := func(n string) (json.RawMessage, bool) { v, ok := vars[n]; return v, ok }
	cases := map[string]bool{
		`= x > 5`: true, `= x > 7`: false, `= x >= 7`: true, `= status = "ok"`: true, `= status != "ok"`: false,
		`= x > 5 and status = "ok"`: true, `= x < 5 or status = "ok"`: true, `= not(x > 5)`: false,
		`= big > 123456789012345678901234567889`: true, `= o.n.m = 2`: true, `= f = false`: true,
		`= (x + 1) * 2 = 16`: true, `= x / 2 = 3.5`: true, `= -x < 0`: true, `= missing = null`: true,
		`= "a" + "b" = "ab"`: true, `= true`: true,
	}
	for src, want := range cases {
		e, err := Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := e.EvalBool(look)
		if err != nil || got != want {
			t.Errorf("%s: got %v, %v", src, got, err)
		}
	}
	for _, src := range []string{`= missing > 1`, `= "a"`, `= 1 + "a"`} {
		e, _ := Compile(src)
		if _, err := e.EvalBool(look); err == nil {
			t.Errorf("%s: want error (not a boolean)", src)
		}
	}
	for _, src := range []string{`= x >`, `= (x`, `= x $ 1`, `= "open`, `= and`} {
		if _, err := Compile(src); err == nil {
			t.Errorf("%s: want compile error", src)
		}
	}
}
