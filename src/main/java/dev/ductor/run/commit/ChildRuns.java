package dev.ductor.run.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.run.RunInbox;
import dev.ductor.run.RunRows;
import dev.ductor.run.core.Effect;
import dev.ductor.run.core.RunStatus;
import dev.ductor.run.core.TickResult;
import dev.ductor.run.core.Transition;
import dev.ductor.run.read.RunView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A {@code workflow} node's child runs, in the transaction of the commit that decided on them: started when the
 * parent's tick says so, cancelled with the parent, and reporting their end to the parent's inbox as the node's
 * attempt result. Everything happens in the deciding commit, so a lost race starts nothing and a crash loses nothing;
 * a child's idempotency key is its parent, node and attempt, so no retry of a commit can start a second one.
 */
@ApplicationScoped
public class ChildRuns {

    @Inject RunStarter starter;
    @Inject RunInbox inbox;
    @Inject JsonCodec json;
    @Inject EntityManager em;
    @Inject DuctorConfig config;

    /** The idempotency key of the child run of a parent's node attempt. */
    static String key(UUID parentRunId, String node, int attempt) {
        return "child:" + parentRunId + "/" + node + "/" + attempt;
    }

    /** Starts the children a parent's committed tick asked for; a child that cannot start fails its attempt instead. */
    public void start(UUID parentRunId, String tenant, String tier, List<Effect.StartChild> children, Instant now) {
        if (children.isEmpty()) {
            return;
        }
        int depth = depth(parentRunId) + 1;
        List<Effect.StartChild> starting = new ArrayList<>();
        List<RunStarter.Request> requests = new ArrayList<>();
        for (Effect.StartChild child : children) {
            if (depth > config.workflow().maxChildDepth()) {
                failAttempt(parentRunId, tenant, tier, child.node(), child.attempt(), "child workflow '" + child.workflow()
                        + "' would nest " + depth + " deep, more than ductor.workflow.max-child-depth ("
                        + config.workflow().maxChildDepth() + ")", false, now);
                continue;
            }
            starting.add(child);
            requests.add(new RunStarter.Request(tenant, child.workflow(),
                    new StartRequest(child.input(), key(parentRunId, child.node(), child.attempt()), tier), child.revision(),
                    new RunRows.ParentLink(parentRunId, child.node(), child.attempt())));
        }
        if (requests.isEmpty()) {
            return;
        }
        List<RunStarter.Result> results = starter.startAll(requests);
        for (int i = 0; i < results.size(); i++) {
            Effect.StartChild child = starting.get(i);
            RunStarter.Result result = results.get(i);
            if (result.refused() != null) {
                failAttempt(parentRunId, tenant, tier, child.node(), child.attempt(), "child workflow '" + child.workflow()
                        + "' could not start: " + result.refused().getMessage(), false, now);
                continue;
            }
            RunView started = result.started().run();
            if (result.started().created()) {
                if (!RunStatus.RUNNING.name().equals(started.status())) { // it ended in its first tick
                    reportEnd(new RunRows.ParentLink(parentRunId, child.node(), child.attempt()), tenant, tier,
                            started.runId(), child.workflow(), RunStatus.valueOf(started.status()), started.output(),
                            "it ended as it started", now);
                }
            }
        }
    }

    /** The effects of a committed tick that concern children: start or cancel them. */
    public void apply(UUID runId, String tenant, String tier, List<Effect> effects, Instant now) {
        List<Effect.StartChild> starts = new ArrayList<>();
        for (Effect effect : effects) {
            if (effect instanceof Effect.StartChild start) {
                starts.add(start);
            } else if (effect instanceof Effect.CancelChild cancel) {
                cancel(runId, cancel, now);
            }
        }
        start(runId, tenant, tier, starts, now);
    }

    /** A committed tick ended a child run: its parent's node gets the attempt's result. */
    public void ended(RunRows.ParentLink parent, String tenant, String tier, UUID childRunId, String workflow,
                      TickResult result, Instant now) {
        String cause = result.transitions().stream().filter(t -> t.node() == null).reduce((a, b) -> b)
                .map(Transition::cause).orElse("");
        reportEnd(parent, tenant, tier, childRunId, workflow, result.status(), result.output(), cause, now);
    }

    private void reportEnd(RunRows.ParentLink parent, String tenant, String tier, UUID childRunId, String workflow,
                           RunStatus status, JsonNode output, String cause, Instant now) {
        if (status == RunStatus.SUCCEEDED) {
            ObjectNode payload = json.mapper().createObjectNode();
            payload.put("completed", true);
            payload.set("output", output);
            payload.put("childRunId", childRunId.toString());
            deliver(parent, tenant, tier, payload, now);
        } else {
            // A failed child is a failed attempt, under the node's retry policy; one cancelled by hand is an operator's
            // decision, which a retry must not undo.
            failAttempt(parent.runId(), tenant, tier, parent.node(), parent.attempt(), "child run " + childRunId + " of '"
                    + workflow + "' ended " + status + (cause.isEmpty() ? "" : ": " + cause), status == RunStatus.FAILED, now);
        }
    }

    private void failAttempt(UUID parentRunId, String tenant, String tier, String node, int attempt, String error,
                             boolean retryable, Instant now) {
        ObjectNode payload = json.mapper().createObjectNode();
        payload.put("completed", false);
        payload.put("error", error);
        payload.put("retryable", retryable);
        deliver(new RunRows.ParentLink(parentRunId, node, attempt), tenant, tier, payload, now);
    }

    private void deliver(RunRows.ParentLink parent, String tenant, String tier, ObjectNode payload, Instant now) {
        inbox.deliverAndWake(RunInbox.Delivery.result(parent.runId(), tenant, tier, parent.node(), parent.attempt(), null,
                json.write(payload)), now);
    }

    /** The running child of a node's attempt gets a cancellation in its inbox, as {@code POST /cancel} would give it. */
    private void cancel(UUID parentRunId, Effect.CancelChild child, Instant now) {
        em.flush();
        List<String[]> running = em.unwrap(Session.class).doReturningWork(connection -> {
            List<String[]> found = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("""
                    SELECT run_id, tenant, tier FROM eec_workflow_run
                     WHERE parent_run_id = ? AND parent_node = ? AND parent_attempt = ? AND status = 'RUNNING'""")) {
                select.setObject(1, parentRunId);
                select.setString(2, child.node());
                select.setInt(3, child.attempt());
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        found.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
                    }
                }
            }
            return found;
        });
        for (String[] run : running) {
            UUID childRunId = UUID.fromString(run[0]);
            String body = json.mapper().createObjectNode().put("reason", "its parent run " + parentRunId
                    + " no longer waits for node '" + child.node() + "'").toString();
            inbox.deliverAndWake(RunInbox.Delivery.cancel(childRunId, run[1], run[2], body), now);
        }
    }

    /** How many ancestors a run has: 0 for a top-level run. */
    private int depth(UUID runId) {
        em.flush();
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement select = connection.prepareStatement("""
                    WITH RECURSIVE up(run_id, parent, depth) AS (
                        SELECT run_id, parent_run_id, 0 FROM eec_workflow_run WHERE run_id = ?
                        UNION ALL
                        SELECT r.run_id, r.parent_run_id, up.depth + 1
                          FROM eec_workflow_run r JOIN up ON r.run_id = up.parent
                         WHERE up.depth < 1000)
                    SELECT coalesce(max(depth), 0) FROM up""")) {
                select.setObject(1, runId);
                try (ResultSet rs = select.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
    }
}
