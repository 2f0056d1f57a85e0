package dev.ductor.run;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.PodIdentity;
import dev.ductor.queue.PollingLoops;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.QueueSignal;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/** Claims due wakeups and timers and hands each run's batch to the {@link Coordinator}. */
@ApplicationScoped
public class CoordinatorLoop {

    private static final Logger LOG = Logger.getLogger(CoordinatorLoop.class);
    private static final List<QueueKind> KINDS = List.of(QueueKind.WAKEUP, QueueKind.TIMER);

    private final QueueRepository queue;
    private final Coordinator coordinator;
    private final QueueSignal signal;
    private final DuctorConfig config;
    private final PodIdentity pod;
    private final Clock clock;
    private PollingLoops loops;

    @Inject
    public CoordinatorLoop(QueueRepository queue, Coordinator coordinator, QueueSignal signal, DuctorConfig config,
                           PodIdentity pod, Clock clock) {
        this.queue = queue;
        this.coordinator = coordinator;
        this.signal = signal;
        this.config = config;
        this.pod = pod;
        this.clock = clock;
    }

    void start(@Observes StartupEvent event) {
        if (config.coordinator().enabled()) {
            loops = PollingLoops.start("ductor-coordinator", config.coordinator().threads(), this::round,
                    config.coordinator().idlePoll(), signal,
                    QueueSignal.Channel.COORDINATORS);
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (loops != null) {
            loops.stop(Duration.ofSeconds(10));
        }
    }

    /** One claim and the ticks for it; returns how many items were claimed. */
    public int round() {
        List<QueueItem> claimed = QuarkusTransaction.requiringNew().call(() -> queue.claim(KINDS, pod.name(),
                config.coordinator().batchSize(), config.coordinator().lease(), clock.instant()));
        Map<UUID, List<QueueItem>> byRun = claimed.stream()
                .collect(Collectors.groupingBy(QueueItem::runId, LinkedHashMap::new, Collectors.toList()));
        byRun.forEach((runId, items) -> {
            try {
                coordinator.process(runId, items);
            } catch (RuntimeException e) {
                // Left leased: the items come back when the lease ends, and the error is metered as such.
                LOG.errorf(e, "tick of run %s failed", runId);
            }
        });
        return claimed.size();
    }
}
