package annotate

import "bytes"

// appendIndented appends to dst the JSON src, as encoding/json's Marshal
// and Encoder write it (valid, with no space outside strings but a final
// newline), indented as json.Indent indents it with prefix and indent:
// byte for byte the same (FuzzAppendIndented holds it to that), without
// json.Indent's validating scanner, which is most of the cost of writing an
// indented envelope. Its input is always the encoder's own output, so it
// checks nothing. It stays a copy because the libraries are measurably
// slower on a run's own cases (BenchmarkCaseEncoding over the golden
// envelopes of the examples: an indenting encoding/json Encoder takes
// about 1.45 times as long, segmentio/encoding/json's, which indents with
// json.Indent, about 1.3 times; docs/benchmarks.md).
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	open := false // the last byte opened an object or array
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = appendNewline(dst, prefix, indent, depth)
		}
		switch c {
		case '"':
			end := stringEnd(src, i+1)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = appendNewline(dst, prefix, indent, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				dst = appendNewline(dst, prefix, indent, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd returns the index just past the closing quote of the JSON
// string whose contents start at src[i], or len(src) for a string that is
// not closed.
func stringEnd(src []byte, i int) int {
	for i < len(src) {
		j := bytes.IndexAny(src[i:], `"\`)
		if j < 0 {
			return len(src)
		}
		i += j
		if src[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the byte it escapes
	}
	return len(src)
}

func appendNewline(dst []byte, prefix, indent string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}

// AppendIndented is appendIndented for other packages' encodings: src must
// be what encoding/json's Marshal or Encoder wrote (it is not checked), and
// the result is what json.Indent gives for it.
func AppendIndented(dst, src []byte, prefix, indent string) []byte {
	return appendIndented(dst, src, prefix, indent)
}
