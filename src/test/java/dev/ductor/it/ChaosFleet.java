package dev.ductor.it;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pods of a chaos trial: {@link ChaosSettings#PODS} slots, each holding the current incarnation of one pod, as a
 * Deployment's replicas would. A slot's pod is "ready" (gets traffic) from its first 200 on /q/health/ready until it
 * dies. A pod the trial killed is replaced in its slot at once by a new JVM ({@code pod-<slot>.<n>}, with its own log).
 * A pod that exits by itself (before it was ready, or after) is a finding, recorded in {@link #errors()}; like a
 * kubelet, the fleet then starts a new one in its slot, so the rest of the trial still has three pods.
 */
final class ChaosFleet implements AutoCloseable {

    private static final Duration RESTART_BACKOFF = Duration.ofSeconds(1);

    private final Pods pods;
    private final String[] podProperties;
    private final Slot[] slots = new Slot[ChaosSettings.PODS];
    private final Set<PodProcess> killed = ConcurrentHashMap.newKeySet();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final List<Double> bootSeconds = new CopyOnWriteArrayList<>();
    private volatile long lastReadyAtMillis;
    private volatile boolean closing;

    private static final class Slot {
        final int number;
        final AtomicInteger incarnation = new AtomicInteger();
        volatile PodProcess pod;
        volatile boolean ready;

        Slot(int number) {
            this.number = number;
        }
    }

    ChaosFleet(Pods pods, String[] podProperties) {
        this.pods = pods;
        this.podProperties = podProperties;
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot(i + 1);
        }
    }

    /** All pods start at once, as a Deployment's do (Flyway's lock lets one of them migrate the fresh database). */
    void startAll() throws IOException, InterruptedException {
        for (Slot slot : slots) {
            launch(slot);
        }
        if (!awaitAllReady(Pods.READY_TIMEOUT)) {
            throw new AssertionError("the pods did not all become ready within " + Pods.READY_TIMEOUT + ": " + errors
                    + pods.logTails(40));
        }
    }

    /** The pods that get traffic now. */
    List<PodProcess> ready() {
        List<PodProcess> ready = new ArrayList<>();
        for (Slot slot : readySlots()) {
            ready.add(slot.pod);
        }
        return ready;
    }

    boolean allReady() {
        return readySlots().size() == slots.length;
    }

    /**
     * A pod for a request: a ready one other than {@code notThis} (the one that just failed the client), else any
     * ready one, else any (not ready yet: the connection will be refused and the client tries again).
     */
    PodProcess pick(Random random, PodProcess notThis) {
        List<PodProcess> ready = ready();
        List<PodProcess> others = new ArrayList<>(ready);
        others.remove(notThis);
        if (!others.isEmpty()) {
            return others.get(random.nextInt(others.size()));
        }
        if (!ready.isEmpty()) {
            return ready.get(random.nextInt(ready.size()));
        }
        return slots[random.nextInt(slots.length)].pod;
    }

    /**
     * SIGKILLs a random ready pod, keeping at least one other ready pod serving (waits up to {@code patience} for a
     * replacement to become ready first, as a disruption budget would), and launches its replacement. Returns the
     * killed pod, or null when no pod could be killed within {@code patience}.
     */
    PodProcess killRandom(Random random, Duration patience) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        List<Slot> candidates = readySlots();
        while (candidates.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            candidates = readySlots();
        }
        if (candidates.size() < 2) {
            return null;
        }
        Slot victim = candidates.get(random.nextInt(candidates.size()));
        PodProcess pod = victim.pod;
        victim.ready = false;
        killed.add(pod);
        int exit = pod.kill();
        log("SIGKILLed " + pod + " (exit " + exit + ")");
        launch(victim);
        return pod;
    }

    /** Waits until every slot's pod is ready; false on timeout. */
    boolean awaitAllReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!allReady()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }

    /** Pods that exited without being killed (during their boot or after): each one a broken promise. */
    List<String> errors() {
        return errors;
    }

    /** Seconds from launch to ready, per pod incarnation. */
    List<Double> bootSeconds() {
        return bootSeconds;
    }

    /** The wall-clock millisecond the latest pod became ready. */
    long lastReadyAtMillis() {
        return lastReadyAtMillis;
    }

    /** From now on a pod that exits is not replaced (the trial is over and {@link Pods#close()} stops them). */
    @Override
    public void close() {
        closing = true;
    }

    private List<Slot> readySlots() {
        List<Slot> ready = new ArrayList<>();
        for (Slot slot : slots) {
            if (slot.ready && slot.pod != null) {
                ready.add(slot);
            }
        }
        return ready;
    }

    /** A new incarnation in the slot, and a thread that watches it become ready and, later, exit. */
    private void launch(Slot slot) throws IOException {
        PodProcess pod = pods.launch("pod-" + slot.number + "." + slot.incarnation.incrementAndGet(), podProperties);
        slot.pod = pod;
        Thread supervisor = new Thread(() -> supervise(slot, pod), "chaos-supervise-" + pod.name());
        supervisor.setDaemon(true);
        supervisor.start();
    }

    private void supervise(Slot slot, PodProcess pod) {
        try {
            try {
                pods.awaitReady(pod);
                bootSeconds.add(pod.age());
                lastReadyAtMillis = System.currentTimeMillis();
                if (slot.pod == pod) {
                    slot.ready = true;
                }
            } catch (AssertionError notReady) {
                // The JVM exited first (the watch below reports it), or it is still booting after the timeout.
                if (pod.isAlive() && !killed.contains(pod) && !closing) {
                    errors.add(pod.name() + " still not ready " + Pods.READY_TIMEOUT.toSeconds() + " s after its launch (log "
                            + pod.log() + ")");
                }
            }
            pod.process().waitFor();
            if (slot.pod == pod) {
                slot.ready = false;
            }
            if (killed.contains(pod) || closing) {
                return;
            }
            errors.add(pod.name() + " exited by itself with status " + pod.process().exitValue() + " " + pod.age() + " s after its launch: "
                    + firstError(pod) + " (log " + pod.log() + ")");
            log("UNEXPECTED: " + pod.name() + " exited with status " + pod.process().exitValue() + "; starting a new one in its slot");
            Thread.sleep(RESTART_BACKOFF.toMillis());
            if (!closing && slot.pod == pod) {
                launch(slot);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            errors.add("could not start a new pod in slot " + slot.number + ": " + e);
        }
    }

    /** The first ERROR line of a pod's log and the last "Caused by" under it: what made it exit. */
    private static String firstError(PodProcess pod) {
        String tail = pod.tail(400);
        String error = null;
        String cause = null;
        for (String line : tail.split("\n")) {
            if (error == null && line.contains(" ERROR ")) {
                error = line.trim();
            } else if (error != null && line.startsWith("Caused by:")) {
                cause = line.trim();
            }
        }
        return error == null ? "(no ERROR in its log)" : error + (cause == null ? "" : " ... " + cause);
    }

    private static void log(String message) {
        System.out.println("[ChaosIT] " + message);
    }
}
