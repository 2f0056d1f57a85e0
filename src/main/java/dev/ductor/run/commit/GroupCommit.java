package dev.ductor.run.commit;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.database.PlannerSettings;
import dev.ductor.metrics.DuctorMetrics;
import dev.ductor.metrics.TickOutcome;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.TaskLeases;
import dev.ductor.run.InboxKind;
import dev.ductor.run.InboxMessage;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.NodeStatesCodec;
import dev.ductor.run.RunHistory;
import dev.ductor.run.RunInbox;
import dev.ductor.run.RunLoader;
import dev.ductor.run.RunOutbox;
import dev.ductor.run.RunRows;
import dev.ductor.run.StepReport;
import dev.ductor.run.core.Input;
import dev.ductor.run.core.RunSnapshot;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickLimits;
import dev.ductor.run.core.TickResult;
import dev.ductor.run.core.Transition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.UUID;

/**
 * Applies finished in-process steps to their runs at once, many runs in one transaction: the step's report is
 * the tick's input, so a step costs one commit instead of four (report, wakeup claim, tick, ack), and a batch of
 * steps shares that commit's round trips and its WAL flush.
 *
 * <p>Each run is still its own pure tick on the state just read, committed by the versioned UPDATE
 * ({@link RunRows#update}). A run that lost its race loses only its own part: its report goes to the run's inbox
 * with a wakeup, in this same transaction, and the coordinator retries it on the seed's schedule like any other
 * conflict. A run that cannot be ticked here (its state fails verification, its revision is missing) goes the same
 * way, so it is handled, and reported, where every other tick is. Nothing is dropped: a report is either applied,
 * in the inbox, or fenced off because its lease is no longer held.
 */
@ApplicationScoped
public class GroupCommit {

    private static final Logger LOG = Logger.getLogger(GroupCommit.class);

    /**
     * How a batch went: runs committed, runs that lost their race (sent to the inbox), reports fenced off, and the
     * next steps it leased to the committing pod (eager dispatch), handed to that pod once this commit is durable.
     */
    public record Outcome(int committed, int conflicts, int fenced, List<QueueItem> leased, Set<Long> fencedTasks) {

        public Outcome(int committed, int conflicts, int fenced) {
            this(committed, conflicts, fenced, List.of(), Set.of());
        }

        public Outcome(int committed, int conflicts, int fenced, List<QueueItem> leased) {
            this(committed, conflicts, fenced, leased, Set.of());
        }
    }

    @Inject QueueRepository queue;
    @Inject TaskLeases leases;
    @Inject RunRows runs;
    @Inject RunLoader loader;
    @Inject RunInbox inbox;
    @Inject RunHistory history;
    @Inject RunOutbox outbox;
    @Inject NodeStatesCodec codec;
    @Inject JsonCodec json;
    @Inject DuctorMetrics metrics;
    @Inject Clock clock;
    @Inject PlannerSettings plannerSettings;
    @Inject ChildRuns children;
    @Inject DuctorConfig config;

    private record Planned(RunRows.Row row, TickResult result, List<StepReport> reports) {
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Outcome apply(List<StepReport> reports, LocalSteps local) {
        return applyGroup(reports, local, false);
    }

    /**
     * As {@link #apply}, for results an external worker reported over the API: each result applied here is also
     * recorded in its run's inbox, as consumed, in the same commit, so a repeated identical report is told from a
     * fenced-off one ({@code RunInbox#resultOf}) as on the inbox path, and the coordinator has nothing to do for it.
     * The answer names the reports fenced off ({@link Outcome#fencedTasks}): the caller answers those 409.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Outcome applyReported(List<StepReport> reports, LocalSteps local) {
        return applyGroup(reports, local, true);
    }

    private Outcome applyGroup(List<StepReport> reports, LocalSteps local, boolean record) {
        long started = System.nanoTime();
        Instant now = clock.instant();
        plannerSettings.forThisTransaction();
        // The runs first, then their task rows, then their inboxes: the lock order of every writer of runs and tasks
        // (RunRows#lock), and an inbox read under the run's lock, so a signal that a coordinator's tick left buffered
        // meanwhile is either seen here or meets a run this commit has already moved on.
        Map<UUID, RunRows.Row> rows = runs.lock(reports.stream().map(StepReport::runId).collect(Collectors.toCollection(TreeSet::new)));
        Set<Long> taken = leases.takeLeasedTasks(reports.stream().map(StepReport::taskId).toList(),
                reports.stream().map(StepReport::leaseToken).toList());
        Map<UUID, List<StepReport>> byRun = new TreeMap<>();
        Set<Long> fencedTasks = new HashSet<>();
        for (StepReport report : reports) {
            if (taken.contains(report.taskId())) {
                byRun.computeIfAbsent(report.runId(), id -> new ArrayList<>()).add(report);
            } else {
                fencedTasks.add(report.taskId());
                metrics.staleReport("group-commit");
                LOG.infof("task %d of run %s: its lease was lost before the result arrived; the result is dropped",
                        report.taskId(), report.runId());
            }
        }
        Map<UUID, List<InboxMessage>> pending = inbox.pending(byRun.keySet());

        List<Planned> planned = new ArrayList<>();
        List<StepReport> viaInbox = new ArrayList<>();
        Set<Long> discarded = new HashSet<>();
        int noops = 0;
        for (Map.Entry<UUID, List<StepReport>> run : byRun.entrySet()) {
            RunRows.Row row = rows.get(run.getKey());
            if (row == null) {
                continue;
            }
            TickResult result;
            try {
                RunSnapshot snapshot = loader.snapshot(row); // verified first: the status below is a decision
                if (snapshot.status().isTerminal()) {
                    continue; // a finished run's leftover task: nothing can change it any more
                }
                List<Input> inputs = new ArrayList<>(loader.inputs(pending.getOrDefault(row.runId(), List.of())));
                run.getValue().forEach(report -> inputs.add(report.input()));
                result = Tick.tick(snapshot, inputs, now, new TickLimits(config.workflow().maxFanOut()));
            } catch (RuntimeException cannotTickHere) {
                LOG.warnf("run %s cannot be ticked in a group commit (%s); its results go through its inbox",
                        row.runId(), cannotTickHere.getMessage());
                viaInbox.addAll(run.getValue());
                continue;
            }
            discarded.addAll(result.discardedInputs());
            if (result.isNoop()) {
                noops++;
            } else {
                planned.add(new Planned(row, result, run.getValue()));
            }
        }

        boolean[] won = runs.update(planned.stream().map(p -> new RunRows.Write(p.row().runId(), p.row().version(),
                p.result().status().name(), p.row().tier(), p.row().revision(), codec.write(p.result().nodes()),
                RunCommitter.checksum(p.row().tier(), p.result()), p.result().lastSeq(), json.write(p.result().output())))
                .toList(), now);

        Map<UUID, List<Transition>> transitions = new LinkedHashMap<>();
        List<UUID> finished = new ArrayList<>();
        List<NewQueueItem> items = new ArrayList<>();
        Set<Long> consumed = new HashSet<>(discarded);
        int committed = 0;
        for (int i = 0; i < planned.size(); i++) {
            Planned p = planned.get(i);
            if (!won[i]) {
                viaInbox.addAll(p.reports()); // lost its race: the coordinator retries it from the inbox
                continue;
            }
            committed++;
            UUID runId = p.row().runId();
            transitions.put(runId, p.result().transitions());
            consumed.addAll(p.result().consumedInputs());
            if (p.result().status().isTerminal()) {
                finished.add(runId);
            } else {
                items.addAll(outbox.items(runId, p.row().tenant(), p.row().tier(), p.result().effects(), now));
            }
        }
        history.append(transitions, now);
        queue.deleteForRuns(finished);
        for (int i = 0; i < planned.size(); i++) {
            Planned p = planned.get(i);
            if (won[i]) {
                RunRows.Row row = p.row();
                children.apply(row.runId(), row.tenant(), row.tier(), p.result().effects(), now);
                if (p.result().status().isTerminal() && row.parent() != null) {
                    children.ended(row.parent(), row.tenant(), row.tier(), row.runId(), row.workflowName(), p.result(), now);
                }
            }
        }
        if (record) {
            List<StepReport> applied = new ArrayList<>();
            byRun.values().forEach(applied::addAll);
            applied.removeAll(viaInbox); // those go to the inbox pending, below, for the coordinator
            inbox.recordConsumed(applied, json, now);
        }
        inbox.deliverAndWake(viaInbox.stream().map(report -> RunInbox.Delivery.result(report.runId(), report.tenant(),
                report.tier(), report.node(), report.attempt(), report.taskId(), json.write(report.payload(json.mapper()))))
                .toList(), now);
        List<QueueItem> leased = outbox.dispatch(items, local, now); // eager: next steps this pod runs itself
        inbox.markConsumed(consumed, now);

        long nanos = System.nanoTime() - started;
        int conflicts = planned.size() - committed;
        for (int i = 0; i < committed; i++) {
            metrics.tick(TickOutcome.COMMITTED, nanos);
        }
        for (int i = 0; i < conflicts; i++) {
            metrics.tick(TickOutcome.CONFLICT, nanos);
        }
        for (int i = 0; i < noops; i++) {
            metrics.tick(TickOutcome.NOOP, nanos);
        }
        return new Outcome(committed, conflicts, reports.size() - taken.size(), leased, fencedTasks);
    }
}
