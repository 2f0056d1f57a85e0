package dev.ductor.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueKind;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.TaskClaim;
import dev.ductor.queue.TierWeights;
import dev.ductor.run.commit.RunStarter;
import dev.ductor.run.commit.StartRequest;
import dev.ductor.workflow.WorkflowService;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/** Builds workflows and runs straight through the services, for tests below the HTTP layer. */
@ApplicationScoped
public class Fixtures {

    @Inject
    WorkflowService workflows;

    @Inject
    RunStarter starter;

    @Inject
    QueueRepository queue;


    @Inject

    TaskClaim claim;

    @Inject
    EntityManager em;

    @Inject
    ObjectMapper mapper;

    @Inject
    Clock clock;

    @Inject
    TierWeights weights;

    public String uniqueName(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public JsonNode json(String text) {
        try {
            return mapper.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A chain of {@code length} tasks with the given handler, n0 -> n1 -> ... */
    public String chain(String tenant, int length, String handler) {
        StringBuilder nodes = new StringBuilder();
        for (int i = 0; i < length; i++) {
            nodes.append(i == 0 ? "" : ",").append("{\"id\":\"n").append(i).append("\",\"type\":\"task\",\"handler\":\"")
                    .append(handler).append("\"").append(i == 0 ? "" : ",\"dependsOn\":[\"n" + (i - 1) + "\"]").append("}");
        }
        return define(tenant, "{\"nodes\":[" + nodes + "]}");
    }

    public String define(String tenant, String definition) {
        String name = uniqueName("wf");
        workflows.put(tenant, name, json(definition), OptionalLong.empty());
        return name;
    }

    public UUID start(String tenant, String workflow) {
        return starter.start(tenant, workflow, new StartRequest(json("{}"), null, "standard")).run().runId();
    }

    /** Claims due tasks of the given handlers for this run, as a worker would. */
    public List<QueueItem> claimTasks(UUID runId, Set<String> handlers) {
        return QuarkusTransaction.requiringNew().call(() ->
                claim.claimTasks(handlers, null, null, "test", 100, Duration.ofSeconds(30), clock.instant(), weights))
                .stream().filter(t -> t.runId().equals(runId)).toList();
    }

    /** Enqueues a wakeup for the run (optionally a requeued one) and claims it, as a coordinator pod would. */
    public QueueItem claimedWakeup(String tenant, UUID runId, int requeueCount, String payload) {
        QuarkusTransaction.requiringNew().run(() -> queue.enqueue(List.of(new NewQueueItem(QueueKind.WAKEUP, tenant,
                "standard", runId, null, 0, null, null, null, payload, requeueCount, clock.instant())), clock.instant()));
        return claimWakeupOf(runId);
    }

    /** Claims the run's queued wakeup, as a coordinator pod would. */
    public QueueItem claimedWakeupOf(UUID runId) {
        return claimWakeupOf(runId);
    }

    private QueueItem claimWakeupOf(UUID runId) {
        for (int round = 0; round < 100; round++) {
            List<QueueItem> claimed = QuarkusTransaction.requiringNew().call(() ->
                    queue.claim(List.of(QueueKind.WAKEUP), "test", 100, Duration.ofSeconds(30), clock.instant()));
            for (QueueItem item : claimed) {
                if (item.runId().equals(runId)) {
                    return item;
                }
            }
        }
        throw new AssertionError("the wakeup of run " + runId + " was never claimed");
    }

    public long seq(UUID runId) {
        return count("SELECT last_transition_seq FROM eec_workflow_run WHERE run_id = ?1", runId);
    }

    public String status(UUID runId) {
        return QuarkusTransaction.requiringNew().call(() -> (String) em.createNativeQuery(
                "SELECT status FROM eec_workflow_run WHERE run_id = ?1").setParameter(1, runId).getSingleResult());
    }

    @SuppressWarnings("unchecked")
    public String rows(String sql, Object... params) {
        return QuarkusTransaction.requiringNew().call(() -> {
            var query = em.createNativeQuery(sql);
            for (int i = 0; i < params.length; i++) {
                query.setParameter(i + 1, params[i]);
            }
            return ((java.util.List<Object>) query.getResultList()).stream()
                    .map(r -> r instanceof Object[] a ? java.util.Arrays.toString(a) : String.valueOf(r)).toList().toString();
        });
    }

    /** Waits (up to 30 s) until the run has {@code status}; fails the test with the status it has otherwise. */
    public void awaitStatus(UUID runId, String status) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        String now = status(runId);
        while (!status.equals(now) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            now = status(runId);
        }
        org.junit.jupiter.api.Assertions.assertEquals(status, now, "status of run " + runId);
    }

    public String nodeState(UUID runId, String node) {
        return QuarkusTransaction.requiringNew().call(() -> (String) em.createNativeQuery(
                "SELECT node_states -> ?2 ->> 'state' FROM eec_workflow_run WHERE run_id = ?1")
                .setParameter(1, runId).setParameter(2, node).getSingleResult());
    }

    public long version(UUID runId) {
        return QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT db_record_version FROM eec_workflow_run WHERE run_id = ?1").setParameter(1, runId).getSingleResult()).longValue());
    }

    @SuppressWarnings("unchecked")
    public List<Long> historySeqs(UUID runId) {
        return QuarkusTransaction.requiringNew().call(() -> ((List<Number>) em.createNativeQuery(
                "SELECT seq FROM eec_run_transition WHERE run_id = ?1 ORDER BY seq").setParameter(1, runId).getResultList())
                .stream().map(Number::longValue).toList());
    }

    public long count(String sql, Object... params) {
        return QuarkusTransaction.requiringNew().call(() -> {
            var query = em.createNativeQuery(sql);
            for (int i = 0; i < params.length; i++) {
                query.setParameter(i + 1, params[i]);
            }
            return ((Number) query.getSingleResult()).longValue();
        });
    }
}
