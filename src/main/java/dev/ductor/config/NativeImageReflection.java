package dev.ductor.config;

import dev.ductor.aggregate.core.RuleViolation;
import dev.ductor.aggregate.pool.PoolView;
import dev.ductor.aggregate.rule.EventReceipt;
import dev.ductor.aggregate.rule.RuleView;
import dev.ductor.api.Problem;
import dev.ductor.run.RunView;
import dev.ductor.run.TickRetrySchedule;
import dev.ductor.workflow.StoredWorkflow;
import dev.ductor.workflow.model.Violation;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The classes a native executable must be able to inspect or create by reflection that no Quarkus extension
 * registers by itself. A JVM needs none of this; the annotation is read only by a native build.
 *
 * <p>Registered by extensions, so not here: the types in JAX-RS resource method signatures (Quarkus REST registers
 * return types and bodies with their fields and type arguments: {@code RunPage}, {@code TransitionView},
 * {@code AggregateEvent}, {@code ExternalTasks.ClaimedTask}, ...), the Hibernate entities and their embeddables,
 * the configuration mappings and the {@code META-INF/services} config source factories.
 *
 * <p>Listed here, each nested type explicitly:
 * <ul>
 *   <li>entities of a {@code jakarta.ws.rs.core.Response}, whose signature names no type: {@link StoredWorkflow},
 *   {@link RunView} (with its {@code DeadLetters}), {@link PoolView}, {@link RuleView}, {@link EventReceipt} and the {@link Problem} of every
 *   error (StoredWorkflow and RunView are also in signatures, of the workflow list and {@code RunPage}, and so
 *   registered twice; the others were in no generated reflection configuration before this list);</li>
 *   <li>what a problem document carries in its extension members: the {@link Violation}s of a refused definition,
 *   the {@link RuleViolation}s of a refused rule, and the {@code current} view of a version conflict (the views
 *   above);</li>
 *   <li>JSON stored in a column and read back by the ObjectMapper: {@link EventReceipt.Outcome} and its entries,
 *   kept in {@code eec_event.outcome} to answer a repeated event ({@code EventIngestion});</li>
 *   <li>{@link TickRetrySchedule}, which SmallRye Fault Tolerance instantiates reflectively for
 *   {@code @CustomBackoff}. quarkus-smallrye-fault-tolerance 3.33.2 registers every {@code CustomBackoffStrategy}
 *   itself; it is listed so that the retry schedule does not depend on that.</li>
 * </ul>
 * Every other JSON column is a String mapped with {@code @JdbcTypeCode(SqlTypes.JSON)} and written or read as a
 * {@code JsonNode} tree, which needs no registration.
 *
 * <p>{@code NativeImageReadinessTest} (src/test/java/dev/ductor/guard) finds, in the compiled classes, every value
 * handed to Jackson outside a resource signature and fails when its type, or a type it contains, is not listed here.
 */
@RegisterForReflection(targets = {
        StoredWorkflow.class,
        RunView.class,
        RunView.NodeView.class,
        RunView.DeadLetters.class,
        PoolView.class,
        RuleView.class,
        EventReceipt.class,
        EventReceipt.StartedRun.class,
        EventReceipt.SignalledRun.class,
        EventReceipt.SkippedRule.class,
        EventReceipt.Outcome.class,
        Problem.class,
        Violation.class,
        RuleViolation.class,
        TickRetrySchedule.class,
})
public final class NativeImageReflection {

    private NativeImageReflection() {
    }
}
