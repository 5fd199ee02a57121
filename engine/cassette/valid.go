package cassette

// maxDepth is the deepest nesting of arrays and objects encoding/json
// accepts; valid refuses a document nested deeper, as json.Valid does.
const maxDepth = 10000

// valid reports whether data is one JSON value with only white space
// around it: exactly json.Valid (FuzzValid holds the two equal), without
// encoding/json's scanner, which calls a function for each byte and was a
// sixth of the time spent reading a transcript. Like json.Valid, it does
// not check that strings are UTF-8.
func valid(data []byte) bool {
	v := validator{data: data}
	i := v.space(0)
	i = v.value(i, 0)
	return i >= 0 && v.space(i) == len(data)
}

// validator checks the syntax of a JSON document; each of its methods
// returns the offset just after what it read, or -1 at the first error.
type validator struct{ data []byte }

func (v *validator) space(i int) int {
	for i < len(v.data) {
		switch v.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (v *validator) value(i, depth int) int {
	if i >= len(v.data) {
		return -1
	}
	switch c := v.data[i]; {
	case c == '{':
		return v.object(i, depth+1)
	case c == '[':
		return v.array(i, depth+1)
	case c == '"':
		return v.str(i)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return v.number(i)
	}
	return -1
}

func (v *validator) literal(i int, lit string) int {
	if len(v.data)-i < len(lit) || string(v.data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func (v *validator) object(i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	i = v.space(i + 1)
	if i < len(v.data) && v.data[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(v.data) || v.data[i] != '"' {
			return -1
		}
		if i = v.str(i); i < 0 {
			return -1
		}
		if i = v.space(i); i >= len(v.data) || v.data[i] != ':' {
			return -1
		}
		if i = v.value(v.space(i+1), depth); i < 0 {
			return -1
		}
		if i = v.space(i); i >= len(v.data) {
			return -1
		}
		switch v.data[i] {
		case ',':
			i = v.space(i + 1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

func (v *validator) array(i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	i = v.space(i + 1)
	if i < len(v.data) && v.data[i] == ']' {
		return i + 1
	}
	for {
		if i = v.value(i, depth); i < 0 {
			return -1
		}
		if i = v.space(i); i >= len(v.data) {
			return -1
		}
		switch v.data[i] {
		case ',':
			i = v.space(i + 1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// str reads the string starting at the quote at i: no control character,
// only the escapes JSON has.
func (v *validator) str(i int) int {
	data := v.data
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i++; i >= len(data) {
				return -1
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-i <= 4 || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at i.
func (v *validator) number(i int) int {
	data := v.data
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = v.digits(i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || !isDigit(data[i+1]) {
			return -1
		}
		i = v.digits(i + 1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		i = v.digits(i)
	}
	return i
}

func (v *validator) digits(i int) int {
	for i < len(v.data) && isDigit(v.data[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
