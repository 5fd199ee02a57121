package cassette

import "github.com/mcptest/mcptest/internal/jsonpos"

// validJSON reports whether data is one JSON value, with white space
// around it allowed: exactly what encoding/json's Valid reports (the same
// grammar, the same nesting limit of 10,000, bytes of any value inside a
// string but the control characters, a quote and a backslash, which only
// an escape may follow), in one pass with no state machine called per
// byte. Every recording is checked whole before it is decoded (the decoder
// relies on it), and encoding/json's scanner was a fifth of reading a
// transcript; FuzzValidJSON and TestValidJSONIsJSONValid hold the two to
// the same answer.
func validJSON(data []byte) bool {
	// open holds the containers not yet closed: '{' or '['.
	var open []byte
	i := jsonpos.Space(data, 0)
	for {
		// A value starts at i.
		if i >= len(data) {
			return false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(open) == vjMaxNesting {
				return false
			}
			open = append(open, c)
			i = jsonpos.Space(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' or ']': empty
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i = vjMember(data, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			i = vjStr(data, i)
		case c == 't':
			i = vjLiteral(data, i, "true")
		case c == 'f':
			i = vjLiteral(data, i, "false")
		case c == 'n':
			i = vjLiteral(data, i, "null")
		default:
			i = vjNumber(data, i)
		}
		if i < 0 {
			return false
		}
		// A value ended at i: close what it ends, then a comma starts
		// the next one.
		for {
			i = jsonpos.Space(data, i)
			if len(open) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			top := open[len(open)-1]
			if data[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return false
			}
			i = jsonpos.Space(data, i+1)
			if top == '{' {
				i = vjMember(data, i)
			}
			break
		}
		if i < 0 {
			return false
		}
	}
}

// vjMaxNesting is encoding/json's limit of nested arrays and objects.
const vjMaxNesting = 10000

// vjMember reads the key of an object's member at i and its colon, and
// returns where its value starts, or -1.
func vjMember(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = vjStr(data, i); i < 0 {
		return -1
	}
	i = jsonpos.Space(data, i)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	return jsonpos.Space(data, i+1)
}

// vjPlainByte says which bytes a string holds as they are: all but the
// control characters, the quote and the backslash.
var vjPlainByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// vjStr returns the offset after the string that starts at i (a quote), or
// -1.
func vjStr(data []byte, i int) int {
	i++
	for {
		for i < len(data) && vjPlainByte[data[i]] {
			i++
		}
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !vjHex4(data[i+2:i+6]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

func vjHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// vjLiteral returns the offset after word at i, or -1.
func vjLiteral(data []byte, i int, word string) int {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// vjNumber returns the offset after the number at i, or -1: an optional
// minus, 0 or digits not starting with 0, an optional fraction, an
// optional exponent.
func vjNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = vjDigits(data, i+1)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || !vjIsDigit(data[i+1]) {
			return -1
		}
		i = vjDigits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !vjIsDigit(data[i]) {
			return -1
		}
		i = vjDigits(data, i)
	}
	return i
}

func vjDigits(data []byte, i int) int {
	for i < len(data) && vjIsDigit(data[i]) {
		i++
	}
	return i
}

func vjIsDigit(c byte) bool { return '0' <= c && c <= '9' }
