package engine

// GateKeys names the key of every gate block in the registry, in its
// order, for the external tests that must switch each gate on.
func GateKeys() []string {
	keys := make([]string, len(gateRows))
	for i, r := range gateRows {
		keys[i] = r.key
	}
	return keys
}
