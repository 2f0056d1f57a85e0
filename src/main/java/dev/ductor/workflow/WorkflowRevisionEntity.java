package dev.ductor.workflow;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import org.hibernate.annotations.Immutable;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import java.io.Serializable;
import java.time.Instant;

/** An accepted revision. Immutable: runs pin it, so it is inserted once and never updated. */
@Entity
@Immutable
@Table(name = "eec_workflow_revision")
public class WorkflowRevisionEntity extends PanacheEntityBase {

    @EmbeddedId
    public Key key;

    @JdbcTypeCode(SqlTypes.JSON)
    public String definition;

    public Instant createdAt;

    @Embeddable
    public record Key(String tenant, String name, int revision) implements Serializable {
    }
}
