package dev.ductor.run.retention;

import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.workflow.WorkflowService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * How long a run is kept: the {@code retention} of the revision it runs on, else {@code ductor.retention.default}
 * (zero: forever). Revisions are immutable and cached by {@link WorkflowService}, so asking per run costs a map look-up.
 */
@ApplicationScoped
public class RetentionPeriods {

    private static final Logger LOG = Logger.getLogger(RetentionPeriods.class);

    @Inject WorkflowService workflows;
    @Inject DuctorConfig config;

    /**
     * The period of a run of this revision. A revision that no longer exists follows the default; one that exists but
     * cannot be parsed keeps its runs (zero): what cannot be judged is not deleted.
     */
    public Duration of(String tenant, String workflow, int revision) {
        try {
            Optional<Duration> own = workflows.revisionIfAny(tenant, workflow, revision)
                    .flatMap(pinned -> pinned.definition().ownRetention());
            return own.orElse(config.retention().defaultPeriod());
        } catch (RuntimeException unreadable) {
            if (DatabaseOutage.isOutage(unreadable)) {
                throw unreadable;
            }
            LOG.warnf("revision %d of workflow '%s' (tenant %s) cannot be read, so its runs are kept: %s", revision, workflow,
                    tenant, unreadable.getMessage());
            return Duration.ZERO;
        }
    }

    /** The shortest period any run may have (zero when no run can ever expire): how far back the scan must reach. */
    public Duration shortest() {
        Duration shortest = config.retention().defaultPeriod();
        for (String named : workflows.retentionsNamed()) {
            try {
                Duration period = Duration.parse(named);
                if (!period.isNegative() && !period.isZero() && (shortest.isZero() || period.compareTo(shortest) < 0)) {
                    shortest = period;
                }
            } catch (DateTimeParseException e) {
                LOG.warnf("a stored revision names retention '%s', which is not a duration; its runs follow the default", named);
            }
        }
        return shortest;
    }
}
