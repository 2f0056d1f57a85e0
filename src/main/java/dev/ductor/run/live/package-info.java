/**
 * The live feed: PostgreSQL's notifications of committed runs ({@link dev.ductor.run.live.RunChangeFeed}, owner of
 * {@code eec_run_watch}) and the server-sent event streams of runs they feed.
 */
package dev.ductor.run.live;
