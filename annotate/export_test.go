package annotate

// The fixtures of the package's tests, for its external tests.
var (
	SampleEnvelope      = sample
	ReliabilityEnvelope = reliabilitySample
)
