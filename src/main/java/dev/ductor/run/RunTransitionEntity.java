package dev.ductor.run;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

import java.io.Serializable;
import java.time.Instant;
import java.util.UUID;

/**
 * One history row, named by its run and seq: {@code UNIQUE (run_id, seq)} makes a duplicate or a lost race impossible
 * to record twice. Read only; {@link RunHistory} appends.
 */
@Entity
@Table(name = "eec_run_transition")
@IdClass(RunTransitionEntity.Key.class)
public class RunTransitionEntity extends PanacheEntityBase {

    /** The row's key, as JPA wants a composite one. */
    public record Key(UUID runId, long seq) implements Serializable {
    }

    @Id
    public UUID runId;

    @Id
    public long seq;

    public Instant at;

    public String nodeId;

    public String fromState;

    public String toState;

    public String cause;
}
