package live

import "encoding/json"

// isJSON reports whether a catalog file is a JSON document, which is read
// by the JSON reader (yamlpos.ParseJSON): YAML would read a JSON file almost
// the same, but not quite (a surrogate-pair escape such as \ud83d\ude80 is
// refused, and a raw U+2028 inside a string is a line break that eats the
// spaces beside it).
func isJSON(data []byte) bool {
	return json.Valid(data)
}
