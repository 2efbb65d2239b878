package feel

import (
	"encoding/json"
	"strings"
	"testing"
)

func lookOf(vars map[string]string) Lookup {
	return func(n string) (json.RawMessage, bool) {
		v, ok := vars[n]
		return json.RawMessage(v), ok
	}
}

func TestExpressionsForDecisionsAndMappings(t *testing.T) {
	look := lookOf(map[string]string{
		"xs": `[3, 1, 4, 1, 5]`, "orders": `[{"id": "a", "total": 10}, {"id": "b", "total": 25.5}]`,
		"customer": `{"name": "Ada", "tags": ["vip", "eu"], "address": {"city": "Berlin"}}`, "n": `7`, "s": `"Hello World"`,
	})
	cases := map[string]string{
		`[1, 2, 3]`:                          `[1,2,3]`,
		`[]`:                                 `[]`,
		`{a: 1, "b c": "x", d: {e: [true]}}`: `{"a":1,"b c":"x","d":{"e":[true]}}`,
		`{a: 2, b: a * 3}`:                   `{"a":2,"b":6}`,
		`{a: 1}.a`:                           `1`,
		`customer.address.city`:              `"Berlin"`,
		`customer.tags[1]`:                   `"vip"`,
		`xs[-1]`:                             `5`,
		`xs[item > 2]`:                       `[3,4,5]`,
		`orders[total > 20].id`:              `["b"]`,
		`orders.id`:                          `["a","b"]`,
		`orders[1].total`:                    `10`,
		`count(xs)`:                          `5`,
		`sum(xs)`:                            `14`,
		`sum(orders.total)`:                  `35.5`,
		`min(xs)`:                            `1`,
		`max([2, 9, 4])`:                     `9`,
		`mean([1, 2, 4])`:                    `2.3333333333333335`,
		`product([2, 3])`:                    `6`,
		`distinct values(xs)`:                `[3,1,4,5]`,
		`list contains(customer.tags, "eu")`: `true`,
		`append([1], 2, 3)`:                  `[1,2,3]`,
		`concatenate([1], [2, [3]])`:         `[1,2,[3]]`,
		`flatten([1, [2, [3, []]]])`:         `[1,2,3]`,
		`reverse([1, 2, 3])`:                 `[3,2,1]`,
		`index of(xs, 1)`:                    `[2,4]`,
		`sublist(xs, 2, 2)`:                  `[1,4]`,
		`string join(["a", "b"], "-")`:       `"a-b"`,
		`split("a,b;c", "[,;]")`:             `["a","b","c"]`,
		`replace("abc", "(b)", "[$1]")`:      `"a[b]c"`,
		`matches("abc", "^A", "i")`:          `true`,
		`upper case(s)`:                      `"HELLO WORLD"`,
		`starts with(s, "Hell")`:             `true`,
		`substring after(s, " ")`:            `"World"`,
		`trim("  x ")`:                       `"x"`,
		`get value({a: 1}, "a")`:             `1`,
		`context put({a: 1}, "b", 2)`:        `{"a":1,"b":2}`,
		`all([true, true])`:                  `true`,
		`any([false, true])`:                 `true`,
		`if n > 5 then "big" else "small"`:   `"big"`,
		`if missing then 1 else 2`:           `2`,
		`n in [1..10]`:                       `true`,
		`n in (7..10]`:                       `false`,
		`n in [1, 7, 9]`:                     `true`,
		`n in (1, 2, 3)`:                     `false`,
		`n in < 10`:                          `true`,
		`"eu" in customer.tags`:              `true`,
		`n between 7 and 8`:                  `true`,
		`[1..3].start`:                       `1`,
		`is empty([])`:                       `true`,
		`1.5 + 2`:                            `3.5`,
	}
	for src, want := range cases {
		e, err := Compile(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		v, err := e.Eval(look)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := ToJSON(v)
		if err != nil || string(got) != want {
			t.Errorf("%s = %s (%v), want %s", src, got, err, want)
		}
	}
}

func TestUnaryTests(t *testing.T) {
	look := lookOf(map[string]string{"limit": `100`, "n": `101`, "allowed": `["a", "b"]`})
	num := func(s string) any { v, _ := FromJSON([]byte(s)); return v }
	cases := []struct {
		test  string
		input any
		want  bool
	}{
		{"-", nil, true}, {"", "x", true},
		{`"gold"`, "gold", true}, {`"gold"`, "silver", false},
		{`"silver","bronze"`, "bronze", true}, {`"silver","bronze"`, "gold", false},
		{`not("DE")`, "FR", true}, {`not("DE")`, "DE", false}, {`not("a", "b")`, "c", true}, {`not("a", "b")`, "b", false},
		{"< 5", num("4"), true}, {"< 5", num("5"), false}, {"<= 5", num("5"), true}, {">= 10", num("10"), true}, {"> 10", num("10"), false},
		{"< limit", num("99.5"), true}, {"< 5", nil, false}, {"< 5", "4", false},
		{"[1..10]", num("1"), true}, {"[1..10]", num("10"), true}, {"(1..10]", num("1"), false}, {"[1..10)", num("10"), false},
		{"[1..10]", num("10.5"), false}, {`["a".."c"]`, "b", true},
		{"10, [20..30]", num("25"), true}, {"10, [20..30]", num("15"), false},
		{"odd(n)", num("0"), true}, {"? > 3", num("4"), true}, {"? > 3", num("3"), false},
		{`contains(?, "b")`, "abc", true}, {"allowed", "b", true}, {"allowed", "c", false},
		{"true", true, true}, {"false", false, true}, {"true", false, false}, {"null", nil, true},
		{`not(< 5)`, num("7"), true},
		{`[1, 2, 3]`, num("2"), true},
	}
	for _, c := range cases {
		u, err := CompileUnaryTests(c.test)
		if err != nil {
			t.Errorf("%q: %v", c.test, err)
			continue
		}
		got, err := u.Test(c.input, look)
		if err != nil || got != c.want {
			t.Errorf("%q with %v: got %v (%v), want %v", c.test, c.input, got, err, c.want)
		}
	}
	for _, bad := range []string{"< ", "[1..", `"open`, "a == b", "1 2", "not(1", "= 5", "!= 5"} {
		if _, err := CompileUnaryTests(bad); err == nil {
			t.Errorf("%q: want a compile error", bad)
		}
	}
}

// The limits hold for the new syntax: nesting through lists and contexts,
// and lists that grow during evaluation.
func TestLimitsOfCollections(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	if _, err := Compile(deep); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("deep list: %v", err)
	}
	deepCtx := strings.Repeat("{a:", 200) + "1" + strings.Repeat("}", 200)
	if _, err := Compile(deepCtx); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("deep context: %v", err)
	}
	// A list doubled 30 times would be 2^30 elements: the budget stops it.
	src := "[1,1,1,1,1,1,1,1]"
	for i := 0; i < 24; i++ {
		src = "concatenate(" + src + "," + src + ")"
		if len(src) > MaxLength/2 {
			break
		}
	}
	e, err := Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(lookOf(nil)); err == nil {
		t.Log("small enough to evaluate")
	}
	big := make([]string, 200000)
	for i := range big {
		big[i] = "1"
	}
	e, _ = Compile("distinct values(xs)")
	v, err := e.Eval(lookOf(map[string]string{"xs": "[" + strings.Join(big, ",") + "]"}))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := ToJSON(v); string(b) != "[1]" {
		t.Fatalf("distinct values = %s", b)
	}
}

// The old rules stay: prefix not and == are rejected in expressions.
func TestStillRejectsNonFEEL(t *testing.T) {
	for _, src := range []string{"not x", "a == 1", "a && b"} {
		if _, err := Compile(src); err == nil {
			t.Errorf("%s: accepted", src)
		}
	}
}

func TestDates(t *testing.T) {
	look := lookOf(map[string]string{"d": `"2024-02-29"`})
	cases := map[string]string{
		`date(d)`:                      `"2024-02-29"`,
		`date(d) < date("2024-03-01")`: `true`,
		`date(2024, 2, 29) = date(d)`:  `true`,
		`date("2023-02-29")`:           `null`,
		`date("2024-1-01")`:            `null`,
		`date(2024, 13, 1)`:            `null`,
		`date(d).year + date(d).day`:   `2053`,
		`date(d) in [date("2024-01-01")..date("2024-12-31")]`: `true`,
		`date(d) = d`:   `null`,
		`max(1, 2) > 1`: `true`,
	}
	for src, want := range cases {
		e, err := Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		v, err := e.Eval(look)
		got, _ := ToJSON(v)
		if err != nil || string(got) != want {
			t.Errorf("%s = %s (%v), want %s", src, got, err, want)
		}
	}
	u, _ := CompileUnaryTests(`[date("2024-01-01")..date("2024-06-30")), date("2024-12-24")`)
	for in, want := range map[string]bool{"2024-06-29": true, "2024-06-30": false, "2024-12-24": true} {
		v, _ := Compile(`date("` + in + `")`)
		d, _ := v.Eval(look)
		if got, err := u.Test(d, look); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
}
