package cassette

// ValidJSON is validJSON, for the tests of package cassette_test (which
// generate their input with cassette/gen, itself built on cassette).
var ValidJSON = validJSON
