// Package stats holds the exact statistics the gates certify with: the
// Clopper-Pearson lower confidence bound on a binomial success rate.
//
// Everything here is exact where a gate's verdict depends on it: the integer
// percent a gate asserts on is decided with integer arithmetic, never by
// rounding a floating-point estimate, so a lower bound is never rounded up.
package stats
