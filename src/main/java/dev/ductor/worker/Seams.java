package dev.ductor.worker;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.StartupOrder;
import dev.ductor.run.LocalDispatch;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Clock;

/**
 * The two seams behind which the fast paths sit, each strategy chosen here once from its setting: how results are
 * committed ({@code ductor.commit.strategy}: {@link GroupedCommits} or {@link InlineCommits}) and where dispatched steps
 * go ({@code ductor.dispatch.local}: {@link EagerDispatch} or {@link QueuedDispatch}). The defaults are the fast ways;
 * the others are the plain ways, the reference for correctness.
 */
@ApplicationScoped
public class Seams {

    @Produces
    @Singleton
    CommitStrategy commitStrategy(DuctorConfig config, StepReporter steps, ExternalResults external, TaskResults results,
                                  Clock clock) {
        return switch (config.commit().strategy()) {
            case GROUPED -> new GroupedCommits(steps, external, config.worker().enabled());
            case INLINE -> new InlineCommits(results, config.worker().lease(), clock);
        };
    }

    @Produces
    @Singleton
    LocalDispatch localDispatch(DuctorConfig config, InProcessWorker worker) {
        return switch (config.dispatch().local()) {
            case EAGER -> new EagerDispatch(worker, config);
            case QUEUE -> new QueuedDispatch();
        };
    }

    /** The chosen commit strategy starts before the loops that hand it results. */
    void start(@Observes @Priority(StartupOrder.BEFORE_LOOPS) StartupEvent event, CommitStrategy commits) {
        commits.start();
    }
}
