// Package stats holds the exact statistics the gates certify with: the
// Clopper-Pearson lower confidence bound on a binomial success rate, and
// the reliability arithmetic across recorded runs (reliability.go): the
// class of c passes in n runs, the unbiased pass^k estimate as an exact
// rational, integer percents rounded half up.
//
// Everything here is exact where a gate's verdict depends on it: the integer
// percent a gate asserts on is decided with integer arithmetic, never by
// rounding a floating-point estimate, so a lower bound is never rounded up.
package stats
