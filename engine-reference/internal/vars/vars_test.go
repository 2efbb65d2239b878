package vars

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseKeepsNumbersExact(t *testing.T) {
	d, err := Parse(`{"i64": 9223372036854775807, "big": 123456789012345678901234567890, "f": 1.50, "neg": -9007199254740993, "s": "<&>"}`)
	if err != nil {
		t.Fatal(err)
	}
	got := Encode(d)
	want := `{"big":123456789012345678901234567890,"f":1.50,"i64":9223372036854775807,"neg":-9007199254740993,"s":"<&>"}`
	if got != want {
		t.Fatalf("got %s", got)
	}
}

func TestParseRejects(t *testing.T) {
	for in, want := range map[string]string{
		`[1]`: "an array", `"x"`: "a string", `1`: "a number", `true`: "a boolean", `{"a":}`: "invalid JSON",
		`{"a":1}x`: "unexpected data", "{\"a\":\"\xff\"}": "UTF-8",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", in, want, err)
		}
	}
	for _, ok := range []string{"", "  ", "null", "{}"} {
		if d, err := Parse(ok); err != nil || len(d) != 0 {
			t.Errorf("%q: %v %v", ok, d, err)
		}
	}
}

func TestFilterAndHeaders(t *testing.T) {
	d, _ := Parse(`{"a":1,"b":2}`)
	if Encode(Filter(d, []string{"b", "zz"})) != `{"b":2}` || Encode(Filter(d, nil)) != `{"a":1,"b":2}` {
		t.Fatal("filter")
	}
	if StringMapJSON(map[string]string{"k": `v"<`}) != `{"k":"v\"<"}` {
		t.Fatal(StringMapJSON(map[string]string{"k": `v"<`}))
	}
}

// FuzzMergeVariables: parsing two documents and merging them never panics,
// the result is valid JSON, every key of b wins, and values survive a
// parse/encode round trip byte for byte.
func FuzzMergeVariables(f *testing.F) {
	f.Add(`{"a":1}`, `{"b":2}`)
	f.Add(`{"n":123456789012345678901234567890}`, `{"n":-1.5e300}`)
	f.Add(`{"x":{"y":[1,2,{"z":null}]}}`, ``)
	f.Add(`null`, `{"u":"\u00e9\ud83d\ude00"}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		da, err := Parse(a)
		if err != nil {
			return
		}
		db, err := Parse(b)
		if err != nil {
			return
		}
		m := da.Clone()
		Merge(m, db)
		out := Encode(m)
		if !json.Valid([]byte(out)) || !utf8.ValidString(out) {
			t.Fatalf("invalid output %q", out)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		for k, v := range db {
			if string(back[k]) != string(v) {
				t.Fatalf("key %q: %s != %s", k, back[k], v)
			}
		}
		if Encode(back) != out {
			t.Fatal("encoding not stable")
		}
	})
}

func TestLimits(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`
	if _, err := Parse(deep); err == nil || !strings.Contains(err.Error(), "more than 1000 levels") {
		t.Fatalf("depth 1001: %v", err)
	}
	ok := `{"a":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `, "s":"[[[[{{{{\"[["}`
	if _, err := Parse(ok); err != nil {
		t.Fatalf("depth 1000 (brackets in strings do not count): %v", err)
	}
	huge := `{"a":"` + strings.Repeat("x", MaxDocumentBytes) + `"}`
	if _, err := Parse(huge); err == nil || !strings.Contains(err.Error(), "limit is 4194304 bytes") {
		t.Fatalf("size: %v", err)
	}
}

// writeString's fast path for plain ASCII gives exactly encoding/json's
// output (no HTML escaping), for every kind of string.
func TestWriteStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "a", "orderId", "with space", "<&>", "q\"uote", "back\\slash", "tab\t", "nl\n", "\x00\x1f\x7f",
		"é ü", "\u2028\u2029", "\xff\xfe bad utf-8", "emoji 😀"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(12))
		for k := range b {
			b[k] = byte(r.IntN(256))
			if r.IntN(2) == 0 {
				b[k] = byte(0x20 + r.IntN(0x60))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		var got bytes.Buffer
		writeString(&got, s)
		if got.String()+"\n" != want.String() {
			t.Fatalf("writeString(%q) = %s, encoding/json gives %s", s, got.String(), want.String())
		}
	}
}
