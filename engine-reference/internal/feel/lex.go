package feel

import (
	"fmt"
	"strings"
	"unicode"
)

// Lexer: FEEL source text to tokens; rejects syntax that is not FEEL.

type token struct {
	kind byte // 'n' number, 's' string, 'i' identifier, 'o' operator
	text string
	off  int
}

// notFEEL names operators from other languages that FEEL does not have,
// with what to write instead.
var notFEEL = map[string]string{
	"==": "'==' is not FEEL; use '=' for equality",
	"&&": "'&&' is not FEEL; use 'and'",
	"||": "'||' is not FEEL; use 'or'",
	"!":  "'!' is not FEEL; use not(...) or '!=' ",
}

func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			j := i
			dot := false
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' ||
				s[j] == '.' && !dot && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
				dot = dot || s[j] == '.'
				j++
			}
			out = append(out, token{'n', s[i:j], i})
			i = j
		case c == '"':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == '\\' && j+1 < len(s) {
					switch s[j+1] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[j+1])
					}
					j += 2
					continue
				}
				if s[j] == '"' {
					closed = true
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, fmt.Errorf("unterminated string at offset %d", i)
			}
			out = append(out, token{'s', b.String(), i})
			i = j + 1
		case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 0x80 || unicode.IsLetter(rune(s[j])) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, token{'i', s[i:j], i})
			i = j
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			if msg, bad := notFEEL[two]; bad {
				return nil, fmt.Errorf("%s (offset %d)", msg, i)
			}
			if two == "!=" || two == "<=" || two == ">=" || two == ".." {
				out = append(out, token{'o', two, i})
				i += 2
				continue
			}
			if msg, bad := notFEEL[string(c)]; bad {
				return nil, fmt.Errorf("%s (offset %d)", msg, i)
			}
			if strings.IndexByte("=<>+-*/().,[]{}:?", c) >= 0 {
				out = append(out, token{'o', string(c), i})
				i++
				continue
			}
			return nil, fmt.Errorf("unexpected character %q at offset %d", c, i)
		}
	}
	return out, nil
}
