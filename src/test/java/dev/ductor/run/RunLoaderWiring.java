package dev.ductor.run;

import dev.ductor.config.JsonCodec;
import dev.ductor.workflow.WorkflowService;

/**
 * Wires a test's own {@link RunLoader} (a subclass that races or waits in {@code load}) as CDI would, for tests outside
 * this package: the loader's fields stay package-private.
 */
public final class RunLoaderWiring {

    private RunLoaderWiring() {
    }

    public static <T extends RunLoader> T wire(T loader, RunRows rows, WorkflowService workflows, NodeStatesCodec codec,
                                               RunInbox inbox, JsonCodec json) {
        loader.rows = rows;
        loader.workflows = workflows;
        loader.codec = codec;
        loader.inbox = inbox;
        loader.json = json;
        return loader;
    }
}
