// Package vars handles process variables as JSON documents.
//
// Values are kept as raw JSON bytes (json.RawMessage) and never decoded into
// float64, so int64 and arbitrarily large integers survive exactly, as they
// do in Zeebe (which stores msgpack and converts back without loss).
package vars

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Doc is a variable document: name → raw JSON value (compacted).
type Doc map[string]json.RawMessage

// Limits of one variables document. The depth is Jackson's default
// (StreamReadConstraints.maxNestingDepth, 1000), which Zeebe's gateway
// applies when it parses JSON variables; the size is the gateway's maximum
// message size (4 MB), which also bounds what arrives over a broker port.
const (
	MaxDepth         = 1000
	MaxDocumentBytes = 4 << 20
)

// depth returns the deepest nesting of objects and arrays in a JSON text
// (strings skipped), without recursion.
func depth(s string) int {
	d, maxD := 0, 0
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			d++
			if d > maxD {
				maxD = d
			}
		case '}', ']':
			d--
		}
	}
	return maxD
}

// Parse turns a gateway `variables` string into a Doc. An empty string (or
// `null`) means no variables, as in Zeebe. Anything else must be a JSON
// object in valid UTF-8; the error says what is wrong so users can act on it.
func Parse(s string) (Doc, error) {
	if !utf8.ValidString(s) {
		return nil, errors.New("the document is not valid UTF-8")
	}
	if len(s) > MaxDocumentBytes {
		return nil, fmt.Errorf("the document is %d bytes; the limit is %d bytes", len(s), MaxDocumentBytes)
	}
	t := strings.TrimSpace(s)
	if t == "" || t == "null" {
		return Doc{}, nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("expected document to be a JSON object, but was %s", kindOf(t))
	}
	if d := depth(t); d > MaxDepth {
		return nil, fmt.Errorf("the document nests objects/arrays more than %d levels deep", MaxDepth)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: unexpected data after the top-level object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("invalid JSON: unexpected data after the top-level object")
	}
	d := make(Doc, len(raw))
	for k, v := range raw {
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return nil, fmt.Errorf("invalid JSON in variable %q: %v", k, err)
		}
		d[k] = json.RawMessage(buf.Bytes())
	}
	return d, nil
}

func kindOf(t string) string {
	switch t[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		if t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
			return "a number"
		}
		return "not JSON"
	}
}

// Merge copies every variable of src into dst (src wins).
func Merge(dst, src Doc) {
	for k, v := range src {
		dst[k] = v
	}
}

// Clone returns a shallow copy (values are immutable byte slices).
func (d Doc) Clone() Doc {
	c := make(Doc, len(d))
	for k, v := range d {
		c[k] = v
	}
	return c
}

// Filter keeps only the named variables; an empty list keeps all (Zeebe's
// fetchVariable semantics).
func Filter(d Doc, names []string) Doc {
	if len(names) == 0 {
		return d
	}
	out := make(Doc, len(names))
	for _, n := range names {
		if v, ok := d[n]; ok {
			out[n] = v
		}
	}
	return out
}

// Encode renders the document as a JSON object with sorted keys, without
// HTML escaping, so the same state always gives the same bytes.
func Encode(d Doc) string {
	if len(d) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, k)
		b.WriteByte(':')
		b.Write(d[k])
	}
	b.WriteByte('}')
	return b.String()
}

// writeString writes s as a JSON string, exactly as encoding/json does
// without HTML escaping. Printable ASCII without quotes or backslashes (the
// variable names and most values) is written as it is; anything else goes
// through encoding/json.
func writeString(b *bytes.Buffer, s string) {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		b.Grow(len(s) + 2)
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // drop the encoder's newline
}

// StringMapJSON encodes a map[string]string (task headers) as a JSON object.
func StringMapJSON(m map[string]string) string {
	d := make(Doc, len(m))
	for k, v := range m {
		var b bytes.Buffer
		writeString(&b, v)
		d[k] = b.Bytes()
	}
	return Encode(d)
}
