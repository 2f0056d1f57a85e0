package dev.ductor.sdk.worker;

/** Where the worker counts; the Micrometer binding is only loaded when a MeterRegistry is given. */
interface WorkerMetrics {

    WorkerMetrics NONE = new WorkerMetrics() {
    };

    default void claimed(String handler) {
    }

    default void completed(String handler) {
    }

    default void failed(String handler, boolean retryable) {
    }

    default void leaseLost(String handler) {
    }

    default void handlerFinished(String handler, String outcome, long nanos) {
    }
}
