package dev.ductor.sdk.worker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;

/** Meters named {@code ductor.worker.*}, tagged by handler (and outcome); never by run or task id. */
final class MicrometerWorkerMetrics implements WorkerMetrics {

    private final MeterRegistry registry;

    MicrometerWorkerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void claimed(String handler) {
        Counter.builder("ductor.worker.claims").description("tasks claimed").tag("handler", handler).register(registry).increment();
    }

    @Override
    public void completed(String handler) {
        Counter.builder("ductor.worker.completions").description("attempts reported completed").tag("handler", handler)
                .register(registry).increment();
    }

    @Override
    public void failed(String handler, boolean retryable) {
        Counter.builder("ductor.worker.failures").description("attempts reported failed").tag("handler", handler)
                .tag("retryable", Boolean.toString(retryable)).register(registry).increment();
    }

    @Override
    public void leaseLost(String handler) {
        Counter.builder("ductor.worker.lease.losses").description("attempts whose lease was lost (result not sent)")
                .tag("handler", handler).register(registry).increment();
    }

    @Override
    public void handlerFinished(String handler, String outcome, long nanos) {
        Timer.builder("ductor.worker.handler.duration").description("time in the handler").tag("handler", handler)
                .tag("outcome", outcome).register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }
}
