// Package casedraw draws JSON texts for the tests of the readers of run
// envelopes: values of any Go type (a report.CaseResult's every field,
// drawn by its type), mostly of the type and sometimes not, and the same
// texts cut or with a byte changed; and JSON made to be expensive to
// decode, sized to the decode budget (Floods). It is imported by tests
// only.
package casedraw
