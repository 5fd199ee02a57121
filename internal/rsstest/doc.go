// Package rsstest measures what a command run by a test costs: its exit
// code, wall and CPU time, and peak resident set, read from the kernel.
//
// A child started straight from a test reports the wrong peak on Linux:
// Go starts a child with clone(CLONE_VM|CLONE_VFORK), so until exec the
// child shares the test process's memory, and the kernel folds that
// memory's high-water mark into the child's ru_maxrss. A test that has
// generated hundreds of MiB of input would see them in every child it
// measures. Run therefore starts the command from a fresh copy of the test
// binary (the launcher), which has built nothing: the peak it reports is
// the command's own, over a floor of the launcher's few MiB. A test
// package that measures calls Serve first in its TestMain.
//
// It is for tests, and imports the standard library only.
package rsstest
