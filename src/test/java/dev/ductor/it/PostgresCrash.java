package dev.ductor.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Crashes the PostgreSQL that serves a data directory the way {@code pg_ctl stop -m immediate} does: SIGQUIT to the
 * postmaster, which makes every backend quit at once and exits without a checkpoint, so the next start runs crash
 * recovery. Uses the {@code pg_ctl} beside the running {@code postgres} binary (zonky's extracted copy), through
 * {@code unshare -U} when this JVM is root as zonky itself does (PostgreSQL refuses root); if that cannot be run,
 * sends the same SIGQUIT itself.
 */
final class PostgresCrash {

    private PostgresCrash() {
    }

    /** Returns once the postmaster of {@code dataDir} is gone; fails when there is none to crash. */
    static void immediateStop(Path dataDir) throws IOException, InterruptedException {
        ProcessHandle postmaster = postmaster(dataDir)
                .orElseThrow(() -> new AssertionError("no running postmaster for " + dataDir));
        String how = pgCtlImmediate(postmaster, dataDir);
        postmaster.onExit().completeOnTimeout(postmaster, 30, TimeUnit.SECONDS).join();
        if (!postmaster.isAlive()) {
            log("PostgreSQL pid " + postmaster.pid() + " crashed (" + how + ")");
            return;
        }
        postmaster.destroyForcibly();
        postmaster.onExit().completeOnTimeout(postmaster, 10, TimeUnit.SECONDS).join();
        log("PostgreSQL pid " + postmaster.pid() + " ignored the immediate stop for 30 s (" + how + "); SIGKILLed");
    }

    /** {@code pg_ctl -m immediate stop}, or a plain SIGQUIT when pg_ctl is not at hand; says which it was. */
    private static String pgCtlImmediate(ProcessHandle postmaster, Path dataDir) throws IOException, InterruptedException {
        Optional<Path> pgCtl = besideBinary(postmaster, "pg_ctl");
        if (pgCtl.isPresent()) {
            List<String> command = new ArrayList<>();
            if ("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/unshare"))) {
                command.addAll(List.of("/usr/bin/unshare", "-U"));
            }
            command.addAll(List.of(pgCtl.get().toString(), "-D", dataDir.toString(), "-m", "immediate", "-w", "-t", "30", "stop"));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (process.waitFor(40, TimeUnit.SECONDS) && process.exitValue() == 0) {
                return String.join(" ", command);
            }
            log(String.join(" ", command) + " did not work (" + output + "); sending SIGQUIT instead");
        }
        Process kill = new ProcessBuilder("kill", "-QUIT", Long.toString(postmaster.pid())).redirectErrorStream(true).start();
        kill.waitFor(10, TimeUnit.SECONDS);
        return "kill -QUIT " + postmaster.pid();
    }

    private static Optional<ProcessHandle> postmaster(Path dataDir) throws IOException {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(pidFile);
        return lines.isEmpty() ? Optional.empty() : ProcessHandle.of(Long.parseLong(lines.get(0).trim())).filter(ProcessHandle::isAlive);
    }

    /** A binary in the same directory as the running process's own executable (Linux: /proc/pid/exe). */
    private static Optional<Path> besideBinary(ProcessHandle process, String name) {
        try {
            Path sibling = Path.of("/proc", Long.toString(process.pid()), "exe").toRealPath().resolveSibling(name);
            return Files.isExecutable(sibling) ? Optional.of(sibling) : Optional.empty();
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static void log(String message) {
        System.out.println("[PostgresCrash] " + message);
    }
}
