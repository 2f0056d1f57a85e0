package dev.ductor.run;

import dev.ductor.config.JsonCodec;
import dev.ductor.workflow.WorkflowService;
import jakarta.persistence.EntityManager;

/**
 * Wires a test's own {@link RunLoader} (a subclass that races or waits in {@code load}) as CDI would, for tests outside
 * this package: the loader's fields stay package-private.
 */
public final class RunLoaderWiring {

    private RunLoaderWiring() {
    }

    public static <T extends RunLoader> T wire(T loader, EntityManager em, WorkflowService workflows, NodeStatesCodec codec,
                                               RunInbox inbox, JsonCodec json) {
        loader.em = em;
        loader.workflows = workflows;
        loader.codec = codec;
        loader.inbox = inbox;
        loader.json = json;
        return loader;
    }
}
