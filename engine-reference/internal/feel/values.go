package feel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
)

// FromJSON decodes a JSON document into a FEEL value (numbers exact; JSON
// arrays become lists, objects contexts).
func FromJSON(raw []byte) (any, error) { return decodeJSON(raw) }

// ToJSON encodes a FEEL value as JSON. Numbers are written exactly when
// their decimal expansion ends, otherwise with 34 significant decimals
// (Zeebe's BigDecimal results); a range is an error (it has no JSON form).
func ToJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any, depth int) error {
	if depth > 1000 {
		return fmt.Errorf("value nested more than 1000 levels deep")
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case *big.Rat:
		b.WriteString(numberJSON(x))
	case string:
		enc, _ := json.Marshal(x)
		b.Write(enc)
	case []any:
		b.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, el, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			enc, _ := json.Marshal(k)
			b.Write(enc)
			b.WriteByte(':')
			if err := writeJSON(b, x[k], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case Date:
		b.WriteString(`"` + x.String() + `"`)
	case *Range:
		return fmt.Errorf("a range cannot be a variable value")
	default:
		return fmt.Errorf("value of type %T has no JSON form", v)
	}
	return nil
}

// numberJSON writes a number as a JSON number the way Zeebe stores FEEL
// results (MessagePack): an integer exactly, any other number as the
// nearest double (10 / 3 is 3.3333333333333335, 1.23456789012345678901 is
// 1.2345678901234567). Integers beyond 64 bits stay exact here (Zeebe wraps
// them around, a bug not reproduced).
func numberJSON(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return ratString(r)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// EvalWith evaluates with extra named values (FEEL values, not JSON) that
// shadow the variables: required decisions' results, a rule's inputs.
func (e *Expr) EvalWith(vars Lookup, locals map[string]any) (any, error) {
	return e.root.eval(&env{vars: vars, budget: evalBudget, locals: locals})
}

// TestWith is Test with extra named values.
func (u *UnaryTests) TestWith(input any, vars Lookup, locals map[string]any) (bool, error) {
	if u.any {
		return true, nil
	}
	return u.result(&env{vars: vars, budget: evalBudget, locals: locals}, input)
}

// Describe names a value's type and value for error messages.
func Describe(v any) string { return describe(v) }
