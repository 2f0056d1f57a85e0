package dev.ductor.workflow;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import java.time.Instant;
import java.util.UUID;

/** The current revision of a workflow, edited only with the version the editor read (If-Match). */
@Entity
@Table(name = "eec_workflow_definition")
public class WorkflowDefinitionEntity extends PanacheEntityBase {

    @Id
    public UUID id;

    public String tenant;

    public String name;

    public int revision;

    @JdbcTypeCode(SqlTypes.JSON)
    public String definition;

    @Version
    @Column(name = "db_record_version")
    public long dbRecordVersion;

    public Instant createdAt;

    public Instant updatedAt;
}
