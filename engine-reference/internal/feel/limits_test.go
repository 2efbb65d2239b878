package feel

import (
	"encoding/json"
	"strings"
	"testing"
)

func look(vars map[string]string) Lookup {
	return func(n string) (json.RawMessage, bool) {
		v, ok := vars[n]
		return json.RawMessage(v), ok
	}
}

// The bombs of issue 15: 1.5 million nested parentheses crashed the engine
// with a Go stack overflow; 200,000 took 2 s to deploy. Both are now refused
// at once with an error that names the limit.
func TestNestingBombsAreRefusedQuickly(t *testing.T) {
	for _, depth := range []int{1_500_000, 200_000, 5_000} {
		src := "= " + strings.Repeat("(", depth) + "x > 1" + strings.Repeat(")", depth)
		_, err := Compile(src)
		if err == nil {
			t.Fatalf("depth %d: compiled", depth)
		}
		if depth > 5000 && !strings.Contains(err.Error(), "limit is 16384 bytes") {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if depth == 5000 && !strings.Contains(err.Error(), "nested more than 64 levels") {
			t.Fatalf("depth %d: %v", depth, err)
		}
	}
	for _, src := range []string{
		"= " + strings.Repeat("-", 200) + "1 < 0",
		"= " + strings.Repeat("not(", 100) + "true" + strings.Repeat(")", 100),
		"= " + strings.Repeat("abs(", 100) + "1" + strings.Repeat(")", 100),
	} {
		if _, err := Compile(src); err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("%.30s...: %v", src, err)
		}
	}
	// Just below the limit still works.
	ok := "= " + strings.Repeat("(", 60) + "x > 1" + strings.Repeat(")", 60)
	e, err := Compile(ok)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := e.EvalBool(look(map[string]string{"x": "2"})); err != nil || !b {
		t.Fatal(b, err)
	}
}

// Evaluation is bounded too: repeated multiplication or concatenation of a
// large value ends with an error (an incident), not a partition that spends
// minutes and gigabytes on one condition.
func TestEvaluationBudget(t *testing.T) {
	big := `"` + strings.Repeat("a", 900_000) + `"`
	vars := look(map[string]string{"n": "9" + strings.Repeat("9", 4000), "s": big})
	for _, src := range []string{
		"= " + strings.Repeat("n * ", 2000) + "n > 0",
		"= string length(" + strings.Repeat("s + ", 1000) + "s) > 0",
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.EvalBool(vars); err == nil || !(strings.Contains(err.Error(), "too large") || strings.Contains(err.Error(), "too long") || strings.Contains(err.Error(), "budget")) {
			t.Errorf("%.30s: %v", src, err)
		}
	}
}

// Zeebe's FEEL engine rejects syntax from other languages: '==' (FEEL
// equality is '='), prefix 'not' (FEEL has the function not(...)), '&&',
// '||' and '!'. Deploying such a condition fails in Zeebe; it must here too.
func TestRejectsNonFEEL(t *testing.T) {
	cases := map[string]string{
		`= x == 1`:          "'==' is not FEEL",
		`= not x > 1`:       "prefix 'not'",
		`= not true`:        "prefix 'not'",
		`= x > 1 && y`:      "'&&' is not FEEL",
		`= x > 1 || y`:      "'||' is not FEEL",
		`= !ok`:             "'!' is not FEEL",
		`= foo(1)`:          "unknown function 'foo'",
		`= string length()`: "takes 1 arguments, but got 0",
		`= contains("a")`:   "takes 2 arguments",
	}
	for src, want := range cases {
		_, err := Compile(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", src, err, want)
		}
	}
}

// The built-ins commonly used in gateway conditions, with the results
// Camunda's FEEL documentation gives for them.
func TestBuiltins(t *testing.T) {
	vars := look(map[string]string{"s": `"Hello Wörld"`, "x": "7", "o": `{"a":{"b":null}}`, "nul": "null", "neg": "-7.5"})
	cases := map[string]bool{
		`= not(x > 5)`:                                              false,
		`= not (x > 5) = false`:                                     true,
		`= string length(s) = 11`:                                   true,
		`= string length("") = 0`:                                   true,
		`= contains(s, "Wö")`:                                       true,
		`= contains(s, "x")`:                                        false,
		`= starts with(s, "Hell") and ends with(s, "rld")`:          true,
		`= upper case("abc") = "ABC" and lower case("ABC") = "abc"`: true,
		`= substring("foobar", 3) = "obar"`:                         true,
		`= substring("foobar", 3, 3) = "oba"`:                       true,
		`= substring("foobar", -2, 1) = "a"`:                        true,
		`= is defined(x)`:                                           true,
		`= is defined(missing)`:                                     false,
		`= is defined(o.a.b)`:                                       true, // defined, value null
		`= is defined(o.a.c)`:                                       false,
		`= is defined(nul)`:                                         true,
		`= floor(1.5) = 1 and floor(-1.5) = -2`:                     true,
		`= ceiling(1.5) = 2 and ceiling(-1.5) = -1`:                 true,
		`= floor(-1.56, 1) = -1.6`:                                  true,
		`= abs(neg) = 7.5`:                                          true,
		`= round up(5.5, 0) = 6 and round up(-5.5, 0) = -6 and round up(1.121, 2) = 1.13`:                true,
		`= round down(5.5, 0) = 5 and round down(-5.5, 0) = -5`:                                          true,
		`= round half up(5.5, 0) = 6 and round half up(-5.5, 0) = -6 and round half up(1.125, 2) = 1.13`: true,
		`= round half down(5.5, 0) = 5 and round half down(-5.5, 0) = -5`:                                true,
		// Zeebe 8.8: the rounding functions need a scale; with one argument the result is null.
		`= round up(5.5) = null and round down(5.5) = null and round half up(5.5) = null and round half down(5.5) = null`: true,
		`= decimal(1/3, 2) = .33 and decimal(1.5, 0) = 2 and decimal(2.5, 0) = 2`:                                         true,
		`= modulo(12, 5) = 2 and modulo(-12, 5) = 3 and modulo(12, -5) = -3 and modulo(10.1, 4.5) = 1.1`:                  true,
		`= odd(5) and even(6) and not(odd(2))`:                                                                            true,
		`= min(3, 1, 2) = 1 and max(3, 1, 2) = 3 and sum(1, 2, 3) = 6`:                                                    true,
		`= number("1.5") + 1 = 2.5`:                 true,
		`= string(1.5) = "1.5" and string(x) = "7"`: true,
		`= string length(x) = null`:                 true, // wrong type: null, as in FEEL
	}
	for src, want := range cases {
		e, err := Compile(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := e.EvalBool(vars)
		if err != nil || got != want {
			t.Errorf("%s: got %v, %v; want %v", src, got, err, want)
		}
	}
}
