// Package formats registers every trace reader of traceview with the trace
// package: import it for its side effect (one file per reader, each a blank
// import of that reader's package), then call trace.Open.
package formats
