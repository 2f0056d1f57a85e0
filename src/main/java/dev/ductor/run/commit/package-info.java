/**
 * Every commit that writes a run's state: a start ({@link dev.ductor.run.commit.RunStarter}, grouped by
 * {@link dev.ductor.run.commit.StartBatcher}), one run's load, tick and commit ({@link dev.ductor.run.commit.RunCommitter}),
 * many runs' step results at once ({@link dev.ductor.run.commit.GroupCommit}), and the child runs a commit starts; one
 * package, because a commit starts child runs through the starter and a start seals its row with the committer's checksum.
 */
package dev.ductor.run.commit;
