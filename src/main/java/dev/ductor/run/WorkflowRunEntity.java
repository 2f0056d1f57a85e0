package dev.ductor.run;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import org.hibernate.annotations.Immutable;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import java.time.Instant;
import java.util.UUID;

/**
 * A run row, as the read side shows it. Read-only ({@link Immutable}): Hibernate never writes it, so the row changes
 * through {@link RunRows}' one versioned UPDATE alone, and nothing sets its fields (ArchitectureTest checks it).
 * {@code dbRecordVersion} stays the JPA version, the column the contract names.
 */
@Entity
@Immutable
@Table(name = "eec_workflow_run")
public class WorkflowRunEntity extends PanacheEntityBase {

    @Id
    public UUID runId;

    public String tenant;

    public String workflowName;

    public int workflowRevision;

    public String status;

    public String tier;

    @JdbcTypeCode(SqlTypes.JSON)
    public String nodeStates;

    public long lastTransitionSeq;

    public String stateChecksum;

    @Version
    @Column(name = "db_record_version")
    public long dbRecordVersion;

    @JdbcTypeCode(SqlTypes.JSON)
    public String input;

    @JdbcTypeCode(SqlTypes.JSON)
    public String output;

    public String idempotencyKey;

    /** Set once at start (rules signal the runs whose correlation key is an event's key); never updated. */
    @Column(updatable = false)
    public String correlationKey;

    /** The run whose {@code workflow} node started this one, or null; set once, at start, by {@link RunRows}. */
    @Column(insertable = false, updatable = false)
    public UUID parentRunId;

    @Column(insertable = false, updatable = false)
    public String parentNode;

    @Column(insertable = false, updatable = false)
    public Integer parentAttempt;

    /**
     * The run's tags as a JSON object, null for none; set once, at start, by {@link RunRows}, and never in an UPDATE: a
     * column a tick wrote could not be indexed without losing the tick's HOT update (V11, V17).
     */
    @JdbcTypeCode(SqlTypes.JSON)
    @Column(insertable = false, updatable = false)
    public String tags;

    public Instant createdAt;

    public Instant updatedAt;
}
