package dev.ductor.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.DuctorConfig;
import dev.ductor.config.JsonCodec;
import dev.ductor.config.StartupOrder;
import dev.ductor.database.StartupRetry;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;

/** Loads the sample workflows for tenant {@code demo} when {@code ductor.samples} is on (dev and embedded profiles). */
@ApplicationScoped
public class SampleWorkflows {

    public static final String TENANT = "demo";
    static final List<String> NAMES = List.of("chain3", "fanout", "shipping", "order", "batch", "flaky");
    private static final Logger LOG = Logger.getLogger(SampleWorkflows.class);

    @Inject WorkflowService workflows;
    @Inject JsonCodec json;
    @Inject DuctorConfig config;

    void load(@Observes @Priority(StartupOrder.BEFORE_LOOPS) StartupEvent event) throws Exception {
        if (!config.samples()) {
            return;
        }
        for (String name : NAMES) {
            JsonNode document = json.tree(read("samples/" + name + ".json"));
            // Each sample is looked up before it is written, so a try the database's loss cut short is safe to repeat.
            StartupRetry.whileUnreachable("loading the sample workflows", config.database().startupWait(), () -> {
                try {
                    workflows.get(TENANT, name);
                } catch (dev.ductor.error.NotFoundException absent) {
                    workflows.put(TENANT, name, document, OptionalLong.empty());
                    LOG.infof("Loaded sample workflow %s for tenant %s", name, TENANT);
                }
                return null;
            });
        }
    }

    private static String read(String resource) {
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing sample " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
