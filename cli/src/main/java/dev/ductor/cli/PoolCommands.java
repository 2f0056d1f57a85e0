package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.sdk.Versioned;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.util.List;

@Command(name = "pool", description = "List, show and set pools (fleet-wide concurrency caps).")
final class PoolCommands implements Runnable {

    @Spec
    CommandSpec spec;

    @ParentCommand
    DuctorCli root;

    @Override
    public void run() {
        throw DuctorCli.missingSubcommand(spec);
    }

    @Command(name = "list", description = "All pools, by name.")
    int list() {
        List<JsonNode> pools = root.client("client").listPools();
        if (root.json()) {
            root.printJson(DuctorCli.JSON.valueToTree(pools));
        } else {
            Table table = new Table("NAME", "CAPACITY", "PAUSED", "VERSION");
            for (JsonNode p : pools) {
                table.row(p.path("name").asText(), p.path("capacity").asText(), p.path("paused").asText(), p.path("version").asText());
            }
            table.print(root.env.out());
        }
        return DuctorCli.OK;
    }

    @Command(name = "get", description = "A pool; remembers its version for the next set.")
    int get(@Parameters(paramLabel = "NAME") String name) {
        Versioned pool = root.client("client").getPool(name);
        root.seen().put("pool", name, pool.version());
        show(pool);
        return DuctorCli.OK;
    }

    @Command(name = "set", description = "Create a pool or change it, based on the version you last saw (or --if-match).")
    int set(@Parameters(paramLabel = "NAME") String name,
            @Option(names = "--capacity", paramLabel = "N", required = true, description = "how many tasks of the pool may run at once, fleet-wide") int capacity,
            @Option(names = "--paused", arity = "1", paramLabel = "true|false") Boolean paused,
            @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        Long basedOn = ifMatch != null ? ifMatch : root.seen().get("pool", name);
        Versioned pool = root.client("admin").putPool(name, capacity, paused, basedOn);
        root.seen().put("pool", name, pool.version());
        show(pool);
        return DuctorCli.OK;
    }

    private void show(Versioned pool) {
        if (root.json()) {
            root.printJson(pool.body());
        } else {
            JsonNode p = pool.body();
            root.println("pool " + p.path("name").asText() + "  capacity " + p.path("capacity").asText() + "  paused "
                    + p.path("paused").asText() + "  version " + pool.version());
        }
    }
}
