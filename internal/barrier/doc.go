// Package barrier holds the start of a distributed run until every instance is ready,
// without a coordinator: each instance announces the wall-clock time it became ready
// (the tidemark_instance_ready series, through the remote-write endpoint the run writes
// to), polls what the others announced (through that backend's query API) and, once all
// N are there, computes the start instant from those N values alone (StartInstant). As
// every instance reads the same N values, they all compute the same instant and start on
// it, each by its own clock.
//
// A run given a start time (--start-at) needs none of this: every instance waits for it.
package barrier
