/**
 * Commands on a run from outside: signals and cancellation into its inbox, an operator's PATCH and reset, re-queueing a
 * parked run's dead letters, and the errors they answer with.
 */
package dev.ductor.run.command;
