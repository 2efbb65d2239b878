package feel

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"
)

// Built-in functions on lists, contexts and strings that decision tables
// and mappings use (names and argument order as in Camunda's FEEL).
// Wrong argument types give null, as in FEEL.

// spread turns one list argument into the arguments (sum([1,2]) = sum(1,2)).
func spread(vs []any) []any {
	if len(vs) == 1 {
		if l, ok := vs[0].([]any); ok {
			return l
		}
	}
	return vs
}

func list1(f func(e *env, l []any) (any, error)) builtin {
	return builtin{1, 1, func(e *env, a []node) (any, error) {
		v, err := a[0].eval(e)
		if err != nil {
			return nil, err
		}
		l, ok := v.([]any)
		if !ok {
			return nil, nil
		}
		return f(e, l)
	}}
}

// spend accounts for a list the function builds.
func built(e *env, l []any) (any, error) {
	if err := e.spend(16 * (len(l) + 1)); err != nil {
		return nil, err
	}
	return l, nil
}

// regex compiles a FEEL (XML Schema / Java) pattern with Go's RE2, which
// has no back-references or look-around: such patterns give null.
func regex(pattern, flags string) *regexp.Regexp {
	if len(pattern) > 4096 {
		return nil
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 's', 'm':
			prefix += string(f)
		case 'x':
		default:
			return nil
		}
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	return re
}

func addCollectionBuiltins() {
	add := map[string]builtin{
		"count":    list1(func(e *env, l []any) (any, error) { return big.NewRat(int64(len(l)), 1), nil }),
		"is empty": list1(func(e *env, l []any) (any, error) { return len(l) == 0, nil }),
		"list contains": {2, 2, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			l, ok := vs[0].([]any)
			if !ok {
				return nil, nil
			}
			for _, x := range l {
				if equal(x, vs[1]) {
					return true, nil
				}
			}
			return false, nil
		}},
		"append": {1, -1, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			l, ok := vs[0].([]any)
			if !ok {
				return nil, nil
			}
			return built(e, append(append([]any{}, l...), vs[1:]...))
		}},
		"concatenate": {0, -1, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			out := []any{}
			for _, v := range vs {
				l, ok := v.([]any)
				if !ok {
					return nil, nil
				}
				out = append(out, l...)
			}
			return built(e, out)
		}},
		"union": {0, -1, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			var all []any
			for _, v := range vs {
				l, ok := v.([]any)
				if !ok {
					return nil, nil
				}
				all = append(all, l...)
			}
			return built(e, distinct(all))
		}},
		"distinct values": list1(func(e *env, l []any) (any, error) { return built(e, distinct(l)) }),
		"flatten": list1(func(e *env, l []any) (any, error) {
			var out []any
			var walk func([]any, int) error
			walk = func(l []any, d int) error {
				if d > MaxDepth*16 {
					return fmt.Errorf("flatten: list nested too deep")
				}
				for _, x := range l {
					if s, ok := x.([]any); ok {
						if err := walk(s, d+1); err != nil {
							return err
						}
					} else {
						out = append(out, x)
					}
				}
				return nil
			}
			if err := walk(l, 0); err != nil {
				return nil, err
			}
			if out == nil {
				out = []any{}
			}
			return built(e, out)
		}),
		"reverse": list1(func(e *env, l []any) (any, error) {
			out := make([]any, len(l))
			for i, x := range l {
				out[len(l)-1-i] = x
			}
			return built(e, out)
		}),
		"index of": {2, 2, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			l, ok := vs[0].([]any)
			if !ok {
				return nil, nil
			}
			out := []any{}
			for i, x := range l {
				if equal(x, vs[1]) {
					out = append(out, big.NewRat(int64(i+1), 1))
				}
			}
			return built(e, out)
		}},
		"sublist": {2, 3, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			l, ok := vs[0].([]any)
			start, ok2 := smallInt(vs[1])
			if !ok || !ok2 {
				return nil, nil
			}
			if start < 0 {
				start = int64(len(l)) + start + 1
			}
			if start < 1 || start > int64(len(l)) {
				return nil, nil
			}
			end := int64(len(l))
			if len(vs) == 3 {
				n, ok := smallInt(vs[2])
				if !ok || n < 0 || start-1+n > end {
					return nil, nil
				}
				end = start - 1 + n
			}
			return built(e, append([]any{}, l[start-1:end]...))
		}},
		"product": {1, -1, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			vs = spread(vs)
			if len(vs) == 0 {
				return nil, nil
			}
			p := big.NewRat(1, 1)
			for _, v := range vs {
				x, ok := v.(*big.Rat)
				if !ok {
					return nil, nil
				}
				if _, err := checkNumber(e, new(big.Rat).Mul(p, x)); err != nil {
					return nil, err
				}
				p.Mul(p, x)
			}
			return p, nil
		}},
		"mean": {1, -1, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			vs = spread(vs)
			if len(vs) == 0 {
				return nil, nil
			}
			s := new(big.Rat)
			for _, v := range vs {
				x, ok := v.(*big.Rat)
				if !ok {
					return nil, nil
				}
				s.Add(s, x)
			}
			return checkNumber(e, s.Quo(s, big.NewRat(int64(len(vs)), 1)))
		}},
		"all": {1, -1, boolFold(true)},
		"any": {1, -1, boolFold(false)},
		"string join": {1, 2, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			l, ok := vs[0].([]any)
			if !ok {
				return nil, nil
			}
			sep := ""
			if len(vs) == 2 && vs[1] != nil {
				if sep, ok = vs[1].(string); !ok {
					return nil, nil
				}
			}
			var parts []string
			for _, x := range l {
				switch s := x.(type) {
				case nil:
				case string:
					parts = append(parts, s)
				default:
					return nil, nil
				}
			}
			return checkString(e, strings.Join(parts, sep))
		}},
		"trim": str1(func(e *env, s string) (any, error) { return strings.TrimSpace(s), nil }),
		"substring before": str2(func(s, t string) any {
			if i := strings.Index(s, t); i >= 0 {
				return s[:i]
			}
			return ""
		}),
		"substring after": str2(func(s, t string) any {
			if i := strings.Index(s, t); i >= 0 {
				return s[i+len(t):]
			}
			return ""
		}),
		"matches": {2, 3, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			s, ok1 := vs[0].(string)
			pat, ok2 := vs[1].(string)
			flags, _ := optString(vs, 2)
			if !ok1 || !ok2 {
				return nil, nil
			}
			re := regex(pat, flags)
			if re == nil {
				return nil, nil
			}
			return re.MatchString(s), nil
		}},
		"replace": {3, 4, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			s, ok1 := vs[0].(string)
			pat, ok2 := vs[1].(string)
			rep, ok3 := vs[2].(string)
			flags, _ := optString(vs, 3)
			if !ok1 || !ok2 || !ok3 {
				return nil, nil
			}
			re := regex(pat, flags)
			if re == nil {
				return nil, nil
			}
			return checkString(e, re.ReplaceAllString(s, javaGroups(rep)))
		}},
		"split": {2, 2, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			s, ok1 := vs[0].(string)
			pat, ok2 := vs[1].(string)
			if !ok1 || !ok2 {
				return nil, nil
			}
			re := regex(pat, "")
			if re == nil {
				return nil, nil
			}
			parts := re.Split(s, -1)
			out := make([]any, len(parts))
			for i, p := range parts {
				out[i] = p
			}
			return built(e, out)
		}},
		"get value": {2, 2, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			m, ok1 := vs[0].(map[string]any)
			k, ok2 := vs[1].(string)
			if !ok1 || !ok2 {
				return nil, nil
			}
			return m[k], nil
		}},
		"get entries": {1, 1, func(e *env, a []node) (any, error) {
			v, err := a[0].eval(e)
			if err != nil {
				return nil, err
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, nil
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			out := make([]any, len(keys))
			for i, k := range keys {
				out[i] = map[string]any{"key": k, "value": m[k]}
			}
			return built(e, out)
		}},
		"context put": {3, 3, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			m, ok1 := vs[0].(map[string]any)
			k, ok2 := vs[1].(string)
			if !ok1 || !ok2 {
				return nil, nil
			}
			out := make(map[string]any, len(m)+1)
			for x, y := range m {
				out[x] = y
			}
			out[k] = vs[2]
			if err := e.spend(32 * len(out)); err != nil {
				return nil, err
			}
			return out, nil
		}},
		"context merge": {1, -1, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			out := map[string]any{}
			for _, v := range spread(vs) {
				m, ok := v.(map[string]any)
				if !ok {
					return nil, nil
				}
				for x, y := range m {
					out[x] = y
				}
			}
			if err := e.spend(32 * len(out)); err != nil {
				return nil, err
			}
			return out, nil
		}},
	}
	for k, v := range add {
		builtins[k] = v
	}
	for k, v := range dateBuiltins {
		builtins[k] = v
	}
	// Camunda's FEEL has round up/down/half up/half down only with a scale
	// (n, scale): with one argument no function matches and the result is
	// null (checked against Zeebe 8.8). floor and ceiling have both forms.
	for _, name := range []string{"round up", "round down", "round half up", "round half down"} {
		f := builtins[name].fn
		builtins[name] = builtin{1, 2, func(e *env, a []node) (any, error) {
			if len(a) == 1 {
				return nil, nil
			}
			return f(e, a)
		}}
	}
}

func optString(vs []any, i int) (string, bool) {
	if len(vs) <= i || vs[i] == nil {
		return "", true
	}
	s, ok := vs[i].(string)
	return s, ok
}

// javaGroups turns Java's $1 group references into Go's ${1}.
var javaGroupRef = regexp.MustCompile(`\$(\d+)`)

func javaGroups(rep string) string { return javaGroupRef.ReplaceAllString(rep, "$${$1}") }

// distinct keeps the first of equal elements (linear: keyed by the JSON
// form, numbers exact).
func distinct(l []any) []any {
	out := []any{}
	seen := map[string]bool{}
	for _, x := range l {
		k, err := ToJSON(x)
		key := string(k)
		if err != nil {
			key = fmt.Sprintf("%p", x)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, x)
		}
	}
	return out
}

// boolFold is all() (and=true) / any(): null when an element is not a
// boolean and the result is not decided by the others.
func boolFold(and bool) func(e *env, a []node) (any, error) {
	return func(e *env, a []node) (any, error) {
		vs, err := evalAll(e, a)
		if err != nil {
			return nil, err
		}
		sawNull := false
		for _, v := range spread(vs) {
			b, ok := v.(bool)
			if !ok {
				sawNull = true
				continue
			}
			if b != and {
				return b, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return and, nil
	}
}
