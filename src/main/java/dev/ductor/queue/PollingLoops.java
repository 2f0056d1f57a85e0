package dev.ductor.queue;

import dev.ductor.database.DatabaseOutage;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A few dedicated threads that claim and process work until stopped. Dedicated threads rather than the
 * Quarkus scheduler because a queue consumer must poll again at once while there is work (the scheduler's
 * fixed period would add latency to every step); periodic maintenance does use the scheduler.
 */
public final class PollingLoops {

    private static final Logger LOG = Logger.getLogger(PollingLoops.class);

    private final String name;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    private PollingLoops(String name) {
        this.name = name;
    }

    /** Starts {@code count} threads each calling {@code round} (which returns how much it did) until stopped. */
    public static PollingLoops start(String name, int count, IntSupplier round, Duration idle, QueueSignal signal,
                                     QueueSignal.Channel channel) {
        PollingLoops loops = new PollingLoops(name);
        for (int i = 0; i < count; i++) {
            Thread thread = new Thread(() -> loops.loop(round, idle, signal, channel), name + "-" + i);
            thread.setDaemon(true);
            loops.threads.add(thread);
            thread.start();
        }
        return loops;
    }

    private void loop(IntSupplier round, Duration idle, QueueSignal signal, QueueSignal.Channel channel) {
        Duration backoff = idle;
        int emptyRounds = 0;
        while (running) {
            try {
                long nudges = signal.generation(channel); // before the round: work queued during it is not waited out
                int done = round.getAsInt();
                backoff = idle;
                emptyRounds = done == 0 ? emptyRounds + 1 : 0;
                if (done == 0 && signal.awaitSince(channel, nudges, QueueSignal.idleWait(idle, emptyRounds))) {
                    emptyRounds = 0; // work was queued here: poll promptly again until it runs dry
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
                // The database may be restarting or unreachable: back off instead of spinning on errors. That is one line
                // a round: its stack trace would say nothing more, thousands of times over a switch of primaries.
                String outage = DatabaseOutage.summary(e);
                if (outage != null) {
                    LOG.warnf("%s round failed, the database is unreachable: %s; retrying in %s", name, outage, backoff);
                } else {
                    LOG.warnf(e, "%s round failed; retrying in %s", name, backoff);
                }
                sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : backoff.multipliedBy(2);
            }
        }
    }

    /** Asks the threads to stop after their current round and waits up to {@code grace} for them. */
    public void stop(Duration grace) {
        running = false;
        long deadline = System.nanoTime() + grace.toNanos();
        for (Thread thread : threads) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
