// The external worker of the chain3-sdk benchmark: one JVM running the Java SDK's DuctorWorker with handlers s1, s2
// and s3 (nodes {"handler": "ext:s1"} ...), each answering an empty object at once, as the server's in-process noop
// does. So the figure is the cost of the task protocol over HTTP (claim, complete), not of any work.
// Configured the way the README's "Java worker" example is (token read from a file, default poll wait), with the
// concurrency the in-process workers get in bench/chain3.sh (DUCTOR_WORKER_THREADS=8).
//
// usage: java -cp <ductor-sdk.jar:its runtime deps> bench/sdk/SdkWorker.java <base-uri> <worker-token-file>
//          [concurrency 8] [worker-id]
// Runs until SIGTERM; then shuts the worker down (in-flight tasks finish) and prints its stats to stderr.
import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.worker.DuctorWorker;
import dev.ductor.sdk.worker.TaskContext;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

public class SdkWorker {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: SdkWorker <base-uri> <worker-token-file> [concurrency] [worker-id]");
            System.exit(2);
        }
        int concurrency = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        String workerId = args.length > 3 ? args[3] : "chain3-sdk-worker";
        DuctorClient client = DuctorClient.builder().baseUri(args[0]).tokenFile(Path.of(args[1])).build();
        DuctorWorker worker = DuctorWorker.builder(client)
                .workerId(workerId)
                .concurrency(concurrency)
                .handler("s1", JsonNode.class, (JsonNode input, TaskContext ctx) -> Map.of())
                .handler("s2", JsonNode.class, (JsonNode input, TaskContext ctx) -> Map.of())
                .handler("s3", JsonNode.class, (JsonNode input, TaskContext ctx) -> Map.of())
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            worker.shutdown(Duration.ofSeconds(10));
            System.err.println("worker " + workerId + " stopped: " + worker.stats());
        }));
        worker.start();
        System.err.println("worker " + workerId + " started: concurrency " + concurrency);
        Thread.currentThread().join();
    }
}
