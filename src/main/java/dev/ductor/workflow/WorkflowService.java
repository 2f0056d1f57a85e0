package dev.ductor.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.config.JsonCodec;
import dev.ductor.error.NotFoundException;
import dev.ductor.error.VersionConflictException;
import dev.ductor.workflow.model.Handlers;
import dev.ductor.workflow.model.DefinitionParser;
import dev.ductor.workflow.model.WorkflowDefinition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.OptimisticLockException;
import jakarta.transaction.Transactional;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stores workflow definitions. Creating needs no version; every update names the version it was based
 * on, is compared against the row, and is written by Hibernate's versioned UPDATE, so neither a stale
 * editor nor a race between two editors can overwrite a revision unseen.
 */
@ApplicationScoped
public class WorkflowService {

    /** Fields a GET returns that a client may send back unchanged on PUT; they are not part of the definition. */
    private static final List<String> READ_ONLY_FIELDS = List.of("revision", "version", "createdAt", "updatedAt");

    @Inject EntityManager em;
    @Inject JsonCodec json;
    @Inject Handlers handlers;
    @Inject Clock clock;
    /** Revisions are immutable, so a cache never goes stale. */
    private final Map<WorkflowRevisionEntity.Key, WorkflowDefinition> revisions = new ConcurrentHashMap<>();
    /**
     * The current revision of each workflow as this JVM last read it: a guess, never an answer. Another pod may have
     * put a new revision since; whoever acts on it checks it against the database in the statement that acts.
     */
    private final Map<String, Pinned> lastSeenCurrent = new ConcurrentHashMap<>();

    public record PutResult(boolean created, StoredWorkflow workflow) {
    }

    @Transactional
    public PutResult put(String tenant, String name, JsonNode body, OptionalLong ifMatch) {
        JsonNode document = withoutReadOnlyFields(body);
        WorkflowDefinition parsed = parser().parse(name, document);
        ObjectNode normalized = json.mapper().createObjectNode();
        normalized.put("name", parsed.name());
        if (parsed.retention() != null) {
            normalized.put("retention", document.get("retention").asText());
        }
        if (document.hasNonNull("output")) {
            normalized.set("output", document.get("output"));
        }
        normalized.set("nodes", document.get("nodes"));
        WorkflowDefinitionEntity existing = find(tenant, name);
        Instant now = clock.instant();
        if (existing == null) {
            VersionConflictException.requireNoVersion("Workflow '" + name + "'", ifMatch, body);
            return new PutResult(true, create(tenant, name, normalized, now, body));
        }
        VersionConflictException.requireVersion("Workflow '" + name + "'", ifMatch, existing.dbRecordVersion, () -> view(existing),
                body);
        existing.revision += 1;
        existing.definition = json.write(normalized);
        existing.updatedAt = now;
        try {
            // The versioned UPDATE first: a concurrent editor who won since our read makes it match nothing,
            // before we try to insert the same revision number they just stored.
            em.flush();
        } catch (OptimisticLockException lost) {
            throw new LostEditRaceException(name, ifMatch.getAsLong());
        }
        storeRevision(tenant, name, existing.revision, existing.definition, now);
        return new PutResult(false, view(existing));
    }

    private StoredWorkflow create(String tenant, String name, ObjectNode normalized, Instant now, JsonNode body) {
        // A plain INSERT would abort the transaction when two creators race; ON CONFLICT lets the loser see 409.
        int inserted = em.createNativeQuery("""
                        INSERT INTO eec_workflow_definition (id, tenant, name, revision, definition, db_record_version, created_at, updated_at)
                        VALUES (?1, ?2, ?3, 1, CAST(?4 AS jsonb), 0, ?5, ?5)
                        ON CONFLICT (tenant, name) DO NOTHING""")
                .setParameter(1, UUID.randomUUID())
                .setParameter(2, tenant)
                .setParameter(3, name)
                .setParameter(4, json.write(normalized))
                .setParameter(5, now)
                .executeUpdate();
        WorkflowDefinitionEntity stored = find(tenant, name);
        if (inserted == 0) {
            throw new VersionConflictException("Workflow '" + name + "'", null, stored.dbRecordVersion, view(stored), body);
        }
        storeRevision(tenant, name, 1, stored.definition, now);
        return view(stored);
    }

    private void storeRevision(String tenant, String name, int revision, String definition, Instant now) {
        WorkflowRevisionEntity entity = new WorkflowRevisionEntity();
        entity.key = new WorkflowRevisionEntity.Key(tenant, name, revision);
        entity.definition = definition;
        entity.createdAt = now;
        em.persist(entity);
    }

    /**
     * The predicate "node {@code node} is a signal node of the revision the run {@code run} is pinned to", for a
     * statement of the run's owner that must decide it in SQL (the watchdog's scan skips runs parked on a signal).
     */
    public static String isSignalNodeOfRun(String run, String node) {
        return ("EXISTS (SELECT 1 FROM eec_workflow_revision w WHERE w.tenant = %1$s.tenant AND w.name = %1$s.workflow_name"
                + " AND w.revision = %1$s.workflow_revision"
                + " AND w.definition -> 'nodes' @> jsonb_build_array(jsonb_build_object('id', %2$s, 'type', 'signal')))")
                .formatted(run, node);
    }

    /**
     * The predicate "revision {@code revision} is the current one of workflow {@code name} of {@code tenant}", for a
     * statement of another owner that must decide it in SQL, in its own snapshot (a group of API starts inserts a run
     * only while the revision it was prepared on is still current: {@code RunRows.START}).
     */
    public static String isCurrentRevision(String tenant, String name, String revision) {
        return "EXISTS (SELECT 1 FROM eec_workflow_definition d WHERE d.tenant = %s AND d.name = %s AND d.revision = %s)"
                .formatted(tenant, name, revision);
    }

    /** Whether the tenant has a workflow of this name (without reading its definition). */
    @Transactional
    public boolean exists(String tenant, String name) {
        return !em.createNativeQuery("SELECT 1 FROM eec_workflow_definition WHERE tenant = ?1 AND name = ?2")
                .setParameter(1, tenant)
                .setParameter(2, name)
                .getResultList().isEmpty();
    }

    @Transactional
    public StoredWorkflow get(String tenant, String name) {
        WorkflowDefinitionEntity entity = find(tenant, name);
        if (entity == null) {
            throw new NotFoundException("Workflow", name);
        }
        return view(entity);
    }

    @Transactional
    public List<StoredWorkflow> list(String tenant) {
        return em.createQuery("FROM WorkflowDefinitionEntity WHERE tenant = :tenant ORDER BY name", WorkflowDefinitionEntity.class)
                .setParameter("tenant", tenant)
                .getResultList().stream().map(this::view).toList();
    }

    /** Every revision of a workflow, newest first; 404 when the workflow does not exist. */
    @Transactional
    public List<StoredRevision> revisions(String tenant, String name) {
        if (find(tenant, name) == null) {
            throw new NotFoundException("Workflow", name);
        }
        return em.createQuery("FROM WorkflowRevisionEntity WHERE key.tenant = :tenant AND key.name = :name"
                        + " ORDER BY key.revision DESC", WorkflowRevisionEntity.class)
                .setParameter("tenant", tenant)
                .setParameter("name", name)
                .getResultList().stream().map(this::view).toList();
    }

    /** One stored revision as it was accepted. */
    @Transactional
    public StoredRevision storedRevision(String tenant, String name, int revision) {
        WorkflowRevisionEntity entity = em.find(WorkflowRevisionEntity.class, new WorkflowRevisionEntity.Key(tenant, name, revision));
        if (entity == null) {
            throw new NotFoundException("Workflow revision", name + "/" + revision);
        }
        return view(entity);
    }

    private StoredRevision view(WorkflowRevisionEntity entity) {
        return new StoredRevision(entity.key.name(), entity.key.revision(), json.tree(entity.definition).get("nodes"), entity.createdAt);
    }

    /** A revision a run can pin. */
    public record Pinned(int revision, WorkflowDefinition definition) {
    }

    /** The current revision, parsed, for starting a run. */
    @Transactional
    public Pinned current(String tenant, String name) {
        return currentIfAny(tenant, name).orElseThrow(() -> new NotFoundException("Workflow", name));
    }

    /**
     * The current revision, parsed, or empty when there is no such workflow. Empty rather than an exception, so that
     * a caller deciding many starts in one transaction can refuse one without the interceptor marking the whole
     * transaction for rollback.
     */
    @Transactional
    public Optional<Pinned> currentIfAny(String tenant, String name) {
        // Only the revision number: every start asks, and the parsed revision comes from the cache below. Plain JDBC:
        // Hibernate's native-query machinery (plan cache, result-set mapping) cost more than the query itself here.
        Integer revision = em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT revision FROM eec_workflow_definition WHERE tenant = ? AND name = ?")) {
                select.setString(1, tenant);
                select.setString(2, name);
                try (ResultSet rs = select.executeQuery()) {
                    return rs.next() ? rs.getInt(1) : null;
                }
            }
        });
        if (revision == null) {
            lastSeenCurrent.remove(currentKey(tenant, name));
            return Optional.empty();
        }
        Pinned pinned = new Pinned(revision, revision(tenant, name, revision));
        lastSeenCurrent.put(currentKey(tenant, name), pinned);
        return Optional.of(pinned);
    }

    /**
     * The current revision as {@link #currentIfAny} last read it in this JVM, without asking the database: empty when
     * it has not read it. Possibly stale, so only for a caller that checks it where it writes (a start group's
     * statement inserts a run only while its pinned revision is still the current one, see {@code RunRows}).
     */
    public Optional<Pinned> lastSeenCurrent(String tenant, String name) {
        return Optional.ofNullable(lastSeenCurrent.get(currentKey(tenant, name)));
    }

    private static String currentKey(String tenant, String name) {
        return tenant + '\u001f' + name;
    }

    /** A given revision, parsed, or empty when the workflow has no such revision (a child node's pinned one). */
    public Optional<Pinned> revisionIfAny(String tenant, String name, int revision) {
        try {
            return Optional.of(new Pinned(revision, revision(tenant, name, revision)));
        } catch (NotFoundException missing) {
            return Optional.empty();
        }
    }

    /** A pinned revision, parsed once per JVM. */
    public WorkflowDefinition revision(String tenant, String name, int revision) {
        WorkflowRevisionEntity.Key key = new WorkflowRevisionEntity.Key(tenant, name, revision);
        return revisions.computeIfAbsent(key, k -> {
            WorkflowRevisionEntity entity = em.find(WorkflowRevisionEntity.class, k);
            if (entity == null) {
                throw new NotFoundException("Workflow revision", name + "@" + revision);
            }
            // Stored revisions were valid when accepted; parse without the handler check so that a handler
            // removed later does not make old runs unreadable.
            return new DefinitionParser(h -> true).parse(name, json.tree(entity.definition));
        });
    }

    /**
     * The retention periods stored revisions name, each once: retention's scan reaches back as far as the shortest of
     * them (or the default) asks. Read whole: the revision table holds one row per accepted definition.
     */
    @Transactional
    public List<String> retentionsNamed() {
        @SuppressWarnings("unchecked")
        List<String> named = em.createNativeQuery("SELECT DISTINCT definition ->> 'retention' FROM eec_workflow_revision"
                + " WHERE definition ->> 'retention' IS NOT NULL").getResultList();
        return named;
    }

    private WorkflowDefinitionEntity find(String tenant, String name) {
        return em.createQuery("FROM WorkflowDefinitionEntity WHERE tenant = :tenant AND name = :name", WorkflowDefinitionEntity.class)
                .setParameter("tenant", tenant)
                .setParameter("name", name)
                .getResultList().stream().findFirst().orElse(null);
    }

    private StoredWorkflow view(WorkflowDefinitionEntity entity) {
        JsonNode definition = json.tree(entity.definition);
        return new StoredWorkflow(entity.name, entity.revision, entity.dbRecordVersion,
                definition.hasNonNull("retention") ? definition.get("retention").asText() : null, definition.get("output"),
                definition.get("nodes"), entity.createdAt, entity.updatedAt);
    }

    private DefinitionParser parser() {
        return new DefinitionParser(handlers::isKnown);
    }

    private JsonNode withoutReadOnlyFields(JsonNode body) {
        if (body != null && body.isObject()) {
            ObjectNode copy = ((ObjectNode) body).deepCopy();
            READ_ONLY_FIELDS.forEach(copy::remove);
            return copy;
        }
        return body;
    }
}
