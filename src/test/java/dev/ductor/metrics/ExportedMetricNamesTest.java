package dev.ductor.metrics;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The metric names of CONTRACT §5, as a Prometheus scraper reads them from {@code /q/metrics}: alerts and dashboards
 * are written against these names and label values, so each must be there, with every label value the contract
 * lists, from the start (a series that appears only once it is non-zero breaks an alert on it).
 */
@QuarkusTest
@Tag("api")
class ExportedMetricNamesTest {

    /** Each series as {@code name} or {@code name{label="value"}}, exactly as exported (other labels aside). */
    private static final List<String> CONTRACT = List.of(
            "ductor_tick_total{outcome=\"committed\"}", "ductor_tick_total{outcome=\"conflict\"}",
            "ductor_tick_total{outcome=\"noop\"}", "ductor_tick_total{outcome=\"error\"}",
            "ductor_tick_retries_total",
            "ductor_requeues_total",
            "ductor_forced_failures_total{reason=\"livelock\"}", "ductor_forced_failures_total{reason=\"stuck\"}",
            // a histogram: buckets, count and sum
            "ductor_tick_seconds_bucket", "ductor_tick_seconds_count", "ductor_tick_seconds_sum",
            "ductor_queue_depth{tier=\"interactive\"}", "ductor_queue_depth{tier=\"standard\"}", "ductor_queue_depth{tier=\"bulk\"}",
            "ductor_queue_lag_seconds{tier=\"interactive\"}", "ductor_queue_lag_seconds{tier=\"standard\"}",
            "ductor_queue_lag_seconds{tier=\"bulk\"}",
            "ductor_signals_total{outcome=\"accepted\"}", "ductor_signals_total{outcome=\"duplicate\"}",
            "ductor_signals_total{outcome=\"rejected\"}",
            // retention (docs/operations.md, "Retention"): registered up front, a zero until it deletes
            "ductor_retention_deleted_total{table=\"workflow_run\"}", "ductor_retention_deleted_total{table=\"run_transition\"}",
            "ductor_retention_deleted_total{table=\"run_inbox\"}", "ductor_retention_deleted_total{table=\"queue_item\"}");

    @Test
    void everyMetricOfTheContractIsExportedWithEveryLabelValue() throws Exception {
        // The queue gauges come with the sampler's first pass (every 5 s); the rest are registered at start-up.
        List<String> missing = missing(scrape());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!missing.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            missing = missing(scrape());
        }
        assertEquals(List.of(), missing, "series of CONTRACT §5 missing from /q/metrics");
    }

    private static Set<String> scrape() {
        String text = given().accept("text/plain").get("/q/metrics").then().statusCode(200).extract().asString();
        return text.lines().filter(line -> line.startsWith("ductor_")).map(line -> line.substring(0, line.lastIndexOf(' ')))
                .collect(Collectors.toSet());
    }

    private static List<String> missing(Set<String> exported) {
        List<String> missing = new ArrayList<>();
        for (String series : CONTRACT) {
            int brace = series.indexOf('{');
            String name = brace < 0 ? series : series.substring(0, brace);
            String label = brace < 0 ? null : series.substring(brace + 1, series.length() - 1);
            boolean found = exported.stream().anyMatch(line -> {
                int open = line.indexOf('{');
                String lineName = open < 0 ? line : line.substring(0, open);
                if (!lineName.equals(name)) {
                    return false;
                }
                if (label == null) {
                    return true;
                }
                String labels = open < 0 ? "" : line.substring(open + 1, line.length() - 1);
                return List.of(labels.split(",")).contains(label);
            });
            if (!found) {
                missing.add(series);
            }
        }
        return missing;
    }
}
