/**
 * The read side: a run, its history and the run list as the API shows them, the tag filter, and the fleet's counts of
 * runs; it reads the run's tables and writes nothing.
 */
package dev.ductor.run.read;
