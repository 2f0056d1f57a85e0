package dev.ductor.run.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.ConflictException;
import dev.ductor.error.NotFoundException;
import dev.ductor.error.StaleVersionException;
import dev.ductor.error.VersionConflictException;
import dev.ductor.queue.DeadLetters;
import dev.ductor.run.command.RunOperations;
import dev.ductor.run.command.RunReset;
import dev.ductor.run.read.RunTagFilter;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/**
 * Bulk actions on a filter, run by the server: a durable job (eec_bulk_action) and the runs it matched with their
 * versions (eec_bulk_action_item), worked through in batches by every pod ({@link #runOnce()}: {@code FOR UPDATE SKIP
 * LOCKED} hands each pending item to one pod). Each run is acted on by its own versioned commit through
 * {@link RunOperations}: a reset carries the version the run had when matched as its If-Match, so a run that changed
 * meanwhile is skipped and counted, never overwritten; a cancel skips a run that is no longer RUNNING. The action on a
 * run and the item's outcome are one commit. A pod that dies mid-batch leaves its items claimed for
 * {@code ductor.bulk.claim}, then another pod takes them: what the dead pod committed is settled and counted, what it
 * had not is done by the other pod; no run is acted on twice, and {@code done} counts exactly the runs acted on.
 */
@ApplicationScoped
public class BulkActions {

    private static final Logger LOG = Logger.getLogger(BulkActions.class);
    public static final Set<String> ACTIONS = Set.of("cancel", "reset", "retry-dead-letters");
    private static final Set<String> STATUSES = Set.of("RUNNING", "SUCCEEDED", "FAILED", "CANCELLED");
    private static final int SAMPLE = 10;
    /** The fields a filter may have (the API's schema lists the same: BodySchemasTest). */
    public static final Set<String> FILTER_FIELDS = Set.of("workflow", "status", "revision", "createdBefore", "createdAfter", "tag");

    @Inject EntityManager em;
    @Inject RunOperations operations;
    @Inject DeadLetters deadLetters;
    @Inject ObjectMapper mapper;
    @Inject Clock clock;

    @Inject DuctorConfig config;

    /**
     * The filter of a request, checked: {@code {workflow?, status?, revision?, createdBefore?, createdAfter?, tag?}};
     * {@code tag} is {@code "key:value"} or a list of them, all of which a run must carry ({@link RunTagFilter}).
     */
    public record Filter(String workflow, String status, Integer revision, Instant createdBefore, Instant createdAfter,
                         RunTagFilter tags) {

        public static Filter of(JsonNode filter) {
            if (filter == null || filter.isNull()) {
                return new Filter(null, null, null, null, null, RunTagFilter.NONE);
            }
            if (!filter.isObject()) {
                throw new BadRequestException("filter", "must be an object {workflow?, status?, revision?, createdBefore?, createdAfter?, tag?}");
            }
            for (var names = filter.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!FILTER_FIELDS.contains(name)) {
                    throw new BadRequestException("filter." + name,
                            "unknown filter field; use workflow, status, revision, createdBefore, createdAfter or tag");
                }
            }
            String status = text(filter, "status");
            if (status != null && !STATUSES.contains(status)) {
                throw new BadRequestException("filter.status", "must be one of RUNNING, SUCCEEDED, FAILED, CANCELLED");
            }
            JsonNode revision = filter.get("revision");
            if (revision != null && !revision.isNull() && !(revision.canConvertToInt() && revision.isIntegralNumber() && revision.asInt() > 0)) {
                throw new BadRequestException("filter.revision", "must be a revision number (1, 2, ...)");
            }
            return new Filter(text(filter, "workflow"), status, revision == null || revision.isNull() ? null : revision.asInt(),
                    instant(filter, "createdBefore"), instant(filter, "createdAfter"), tags(filter));
        }

        /** {@code "key:value"} or {@code ["key:value", ...]}. */
        private static RunTagFilter tags(JsonNode filter) {
            JsonNode tag = filter.get("tag");
            if (tag == null || tag.isNull()) {
                return RunTagFilter.NONE;
            }
            List<String> tags = new ArrayList<>();
            if (tag.isTextual()) {
                tags.add(tag.asText());
            } else if (tag.isArray() && !tag.isEmpty()) {
                for (JsonNode each : tag) {
                    if (!each.isTextual()) {
                        throw new BadRequestException("filter.tag", "filter.tag must be \"key:value\" or a list of them");
                    }
                    tags.add(each.asText());
                }
            } else {
                throw new BadRequestException("filter.tag", "filter.tag must be \"key:value\" or a list of them");
            }
            return RunTagFilter.of(tags, "filter.tag");
        }

        private static String text(JsonNode filter, String field) {
            JsonNode value = filter.get(field);
            if (value == null || value.isNull()) {
                return null;
            }
            if (!value.isTextual() || value.asText().isBlank()) {
                throw new BadRequestException("filter." + field, "must be a non-empty string");
            }
            return value.asText();
        }

        private static Instant instant(JsonNode filter, String field) {
            String text = text(filter, field);
            try {
                return text == null ? null : Instant.parse(text);
            } catch (DateTimeParseException e) {
                throw new BadRequestException("filter." + field, "must be an ISO-8601 instant, e.g. 2025-06-02T14:00:00Z");
            }
        }

        String where(Map<String, Object> params) {
            StringBuilder sql = new StringBuilder(" WHERE r.tenant = :tenant");
            if (workflow != null) {
                sql.append(" AND r.workflow_name = :workflow");
                params.put("workflow", workflow);
            }
            if (status != null) {
                sql.append(" AND r.status = :status");
                params.put("status", status);
            }
            if (revision != null) {
                sql.append(" AND r.workflow_revision = :revision");
                params.put("revision", revision);
            }
            if (createdBefore != null) {
                sql.append(" AND r.created_at < :before");
                params.put("before", createdBefore);
            }
            if (createdAfter != null) {
                sql.append(" AND r.created_at >= :after");
                params.put("after", createdAfter);
            }
            if (!tags.isEmpty()) {
                sql.append(" AND ").append(tags.predicate("r", ":tags"));
                params.put("tags", tags.containment());
            }
            return sql.toString();
        }
    }

    /** A dry run: how many runs match, and some of their ids (newest first). */
    public Map<String, Object> preview(String tenant, Filter filter) {
        Map<String, Object> params = new HashMap<>();
        params.put("tenant", tenant);
        String where = filter.where(params);
        var count = em.createNativeQuery("SELECT count(*) FROM eec_workflow_run r" + where);
        params.forEach(count::setParameter);
        var sample = em.createNativeQuery("SELECT r.run_id FROM eec_workflow_run r" + where + " ORDER BY r.created_at DESC, r.run_id DESC LIMIT " + SAMPLE);
        params.forEach(sample::setParameter);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("matched", ((Number) count.getSingleResult()).intValue());
        answer.put("sample", sample.getResultList().stream().map(String::valueOf).toList());
        return answer;
    }

    /** Creates the job with the runs the filter matches now, each with its version; returns its progress. */
    public Map<String, Object> create(String tenant, String action, Filter filter, boolean toCurrentRevision, JsonNode filterJson, String by) {
        UUID id = UUID.randomUUID();
        Instant now = clock.instant();
        return QuarkusTransaction.requiringNew().call(() -> {
            em.createNativeQuery("""
                            INSERT INTO eec_bulk_action (bulk_id, tenant, action, filter, to_revision, status, matched, created_by, created_at, updated_at)
                            VALUES (:id, :tenant, :action, CAST(:filter AS jsonb), :toRevision, 'RUNNING', 0, :by, :now, :now)""")
                    .setParameter("id", id).setParameter("tenant", tenant).setParameter("action", action)
                    .setParameter("filter", filterJson == null || filterJson.isNull() ? "{}" : filterJson.toString())
                    .setParameter("toRevision", toCurrentRevision ? "current" : null).setParameter("by", by).setParameter("now", now)
                    .executeUpdate();
            Map<String, Object> params = new HashMap<>();
            params.put("tenant", tenant);
            var insert = em.createNativeQuery("INSERT INTO eec_bulk_action_item (bulk_id, run_id, expected_version)"
                    + " SELECT CAST(:id AS uuid), r.run_id, r.db_record_version FROM eec_workflow_run r" + filter.where(params));
            params.put("id", id);
            params.forEach(insert::setParameter);
            int matched = insert.executeUpdate();
            if (matched > config.bulk().maxRuns()) {
                throw new BadRequestException("filter", matched + " runs match; a bulk action takes at most " + config.bulk().maxRuns()
                        + " (ductor.bulk.max-runs): narrow the filter, e.g. with createdBefore/createdAfter");
            }
            em.createNativeQuery("UPDATE eec_bulk_action SET matched = :n WHERE bulk_id = :id").setParameter("n", matched)
                    .setParameter("id", id).executeUpdate();
            return progress(tenant, id);
        });
    }

    public Map<String, Object> progress(String tenant, UUID id) {
        List<?> rows = em.createNativeQuery("""
                        SELECT bulk_id, action, CAST(filter AS text), to_revision, status, matched, done, skipped, failed,
                               created_by, created_at, updated_at
                          FROM eec_bulk_action WHERE tenant = :tenant AND bulk_id = :id""")
                .setParameter("tenant", tenant).setParameter("id", id).getResultList();
        if (rows.isEmpty()) {
            throw new NotFoundException("Bulk action", id.toString());
        }
        Object[] row = (Object[]) rows.get(0);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("id", String.valueOf(row[0]));
        answer.put("action", row[1]);
        try {
            answer.put("filter", mapper.readTree((String) row[2]));
        } catch (Exception e) {
            answer.put("filter", row[2]);
        }
        if (row[3] != null) {
            answer.put("toRevision", row[3]);
        }
        answer.put("status", row[4]);
        answer.put("matched", ((Number) row[5]).intValue());
        answer.put("done", ((Number) row[6]).intValue());
        answer.put("skipped", ((Number) row[7]).intValue());
        answer.put("failed", ((Number) row[8]).intValue());
        answer.put("createdBy", row[9]);
        answer.put("createdAt", instant(row[10]));
        answer.put("updatedAt", instant(row[11]));
        return answer;
    }

    /** Stops the job: items not yet taken stay undone; a batch already taken finishes. */
    public Map<String, Object> cancel(String tenant, UUID id) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Map<String, Object> now = progress(tenant, id);
            if (!"RUNNING".equals(now.get("status"))) {
                throw new ConflictException("bulk-action-finished", "Bulk action " + id + " is already " + now.get("status")
                        + "; nothing was changed.", Map.of("current", now));
            }
            em.createNativeQuery("UPDATE eec_bulk_action SET status = 'CANCELLED', updated_at = :now WHERE bulk_id = :id AND status = 'RUNNING'")
                    .setParameter("now", clock.instant()).setParameter("id", id).executeUpdate();
            return progress(tenant, id);
        });
    }

    @Scheduled(every = "${ductor.bulk.interval:1s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void trigger() {
        if (!config.bulk().enabled()) {
            return;
        }
        DatabaseOutage.skipIfUnreachable(LOG, "bulk actions paused", this::runOnce);
    }

    private record Job(UUID id, String tenant, String action, boolean toCurrent, String by) {
    }

    private record Item(UUID bulkId, UUID runId, long expectedVersion) {
    }

    /** Works through pending items, a batch at a time, until none is left to this pod; returns how many it acted on. */
    public int runOnce() {
        int total = 0;
        List<Item> batch;
        do {
            batch = claim();
            Map<UUID, Job> jobs = new HashMap<>();
            for (Item item : batch) {
                process(jobs.computeIfAbsent(item.bulkId(), this::job), item);
            }
            total += batch.size();
            finish();
        } while (batch.size() == config.bulk().batchSize());
        return total;
    }

    @SuppressWarnings("unchecked")
    private List<Item> claim() {
        return QuarkusTransaction.requiringNew().call(() -> {
            List<Object[]> rows = em.createNativeQuery("""
                            UPDATE eec_bulk_action_item i SET claimed_until = now() + make_interval(secs => :claim)
                             WHERE (i.bulk_id, i.run_id) IN (
                                   SELECT p.bulk_id, p.run_id FROM eec_bulk_action_item p JOIN eec_bulk_action b ON b.bulk_id = p.bulk_id
                                    WHERE p.state = 'PENDING' AND b.status = 'RUNNING' AND (p.claimed_until IS NULL OR p.claimed_until < now())
                                    ORDER BY p.bulk_id, p.run_id LIMIT :n FOR UPDATE OF p SKIP LOCKED)
                            RETURNING i.bulk_id, i.run_id, i.expected_version""")
                    .setParameter("claim", (double) config.bulk().claim().toSeconds()).setParameter("n", config.bulk().batchSize()).getResultList();
            List<Item> items = new ArrayList<>();
            for (Object[] row : rows) {
                items.add(new Item((UUID) row[0], (UUID) row[1], ((Number) row[2]).longValue()));
            }
            return items;
        });
    }

    private Job job(UUID id) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Object[] row = (Object[]) em.createNativeQuery("SELECT tenant, action, to_revision, created_by FROM eec_bulk_action WHERE bulk_id = :id")
                    .setParameter("id", id).getSingleResult();
            return new Job(id, (String) row[0], (String) row[1], "current".equals(row[2]), (String) row[3]);
        });
    }

    /** The item was settled by another pod (it took the item once this pod's claim ran out): this pod's action is undone. */
    private static final class SettledElsewhere extends RuntimeException {
        SettledElsewhere() {
            super(null, null, false, false);
        }
    }

    /**
     * Acts on one run and records the item DONE in the same commit, so a pod killed in between leaves neither: the
     * pod that takes the item once the claim runs out acts on the run itself and counts it, and a run is never acted
     * on without being counted as done (nor counted as skipped because its own reset moved its version). A run that
     * changed since it was matched is skipped and counted, never overwritten.
     */
    private void process(Job job, Item item) {
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                String skipped = act(job, item);
                if (!record(item, skipped == null ? "DONE" : "SKIPPED", skipped)) {
                    throw new SettledElsewhere();
                }
            });
        } catch (SettledElsewhere e) {
            // counted once already, by the pod that settled it
        } catch (ConflictException | VersionConflictException | StaleVersionException | NotFoundException e) {
            // The run changed since it was matched (another version, finished, gone, or a commit that raced this one):
            // skipped, never overwritten.
            QuarkusTransaction.requiringNew().run(() -> record(item, "SKIPPED", e.getMessage()));
        } catch (RuntimeException e) {
            if (DatabaseOutage.summary(e) != null) {
                throw e; // left claimed; taken again once the claim runs out
            }
            LOG.warnf(e, "bulk action %s failed on run %s", job.id(), item.runId());
            QuarkusTransaction.requiringNew().run(() -> record(item, "FAILED", String.valueOf(e.getMessage())));
        }
    }

    /** Acts on one run in the caller's transaction: null when done, else why it was skipped; throws when the run changed. */
    private String act(Job job, Item item) {
        switch (job.action()) {
            case "reset" -> {
                ObjectNode body = mapper.createObjectNode().put("failedOnly", true);
                if (job.toCurrent()) {
                    body.put("toRevision", "current");
                }
                operations.reset(job.tenant(), item.runId(), OptionalLong.of(item.expectedVersion()),
                        new RunReset(List.of(), true, job.toCurrent(), false), job.by() + " (bulk action " + job.id() + ")", body);
                return null;
            }
            case "cancel" -> {
                operations.cancel(job.tenant(), item.runId(), "bulk action " + job.id() + " by " + job.by());
                return null;
            }
            case "retry-dead-letters" -> {
                return deadLetters.requeue(job.tenant(), item.runId(), clock.instant()) == 0 ? "no dead letters" : null;
            }
            default -> throw new IllegalStateException("unknown action " + job.action());
        }
    }

    /** Settles a pending item and counts it, in the caller's transaction; false when it was no longer pending. */
    private boolean record(Item item, String state, String detail) {
        int updated = em.createNativeQuery("UPDATE eec_bulk_action_item SET state = :state, detail = :detail"
                        + " WHERE bulk_id = :id AND run_id = :run AND state = 'PENDING'")
                .setParameter("state", state).setParameter("detail", detail == null ? null : detail.substring(0, Math.min(detail.length(), 500)))
                .setParameter("id", item.bulkId()).setParameter("run", item.runId()).executeUpdate();
        if (updated == 1) {
            String column = switch (state) {
                case "DONE" -> "done";
                case "SKIPPED" -> "skipped";
                default -> "failed";
            };
            em.createNativeQuery("UPDATE eec_bulk_action SET " + column + " = " + column + " + 1, updated_at = :now WHERE bulk_id = :id")
                    .setParameter("now", clock.instant()).setParameter("id", item.bulkId()).executeUpdate();
        }
        return updated == 1;
    }

    private void finish() {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("""
                        UPDATE eec_bulk_action b SET status = 'SUCCEEDED', updated_at = :now
                         WHERE b.status = 'RUNNING'
                           AND NOT EXISTS (SELECT 1 FROM eec_bulk_action_item i WHERE i.bulk_id = b.bulk_id AND i.state = 'PENDING')""")
                .setParameter("now", clock.instant()).executeUpdate());
    }

    private static Instant instant(Object value) {
        if (value instanceof Instant i) {
            return i;
        }
        if (value instanceof java.sql.Timestamp t) {
            return t.toInstant();
        }
        if (value instanceof java.time.OffsetDateTime o) {
            return o.toInstant();
        }
        return value == null ? null : Instant.parse(value.toString());
    }
}
