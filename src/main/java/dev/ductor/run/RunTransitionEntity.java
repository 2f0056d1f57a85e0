package dev.ductor.run;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;
import java.util.UUID;

/** One history row; {@code UNIQUE (run_id, seq)} makes a duplicate or a lost race impossible to record twice. */
@Entity
@Table(name = "eec_run_transition")
public class RunTransitionEntity extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    public UUID runId;

    public long seq;

    public Instant at;

    public String nodeId;

    public String fromState;

    public String toState;

    public String cause;
}
