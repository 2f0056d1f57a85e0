package dev.ductor.config;

import dev.ductor.error.LimitReachedException;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What each caller (a token's subject, within its tenant) and each tenant hold open in this pod at once, each against
 * its own bound: the tenant's keeps one tenant from taking the pod from the others, the caller's keeps one of a
 * tenant's callers (a runaway worker, a leaking dashboard) from taking the tenant's share from its other callers.
 * Per pod, like {@link TenantPermits}.
 */
public final class CallerPermits {

    /** What is held, for the answer: {@code limit} names it, each setting sets one bound, {@code noun} says it in words. */
    public record Kind(String limit, String callerSetting, String tenantSetting, String noun) {
    }

    /** One caller's hold on a permit of its own and one of its tenant's; {@link #close()} gives both back, once. */
    public final class Permit implements AutoCloseable {
        private final String tenant;
        private final String caller;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private Permit(String tenant, String caller) {
            this.tenant = tenant;
            this.caller = caller;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                tenants.release(tenant);
                callers.release(caller);
            }
        }
    }

    private final Kind kind;
    private final TenantPermits tenants = new TenantPermits();
    private final TenantPermits callers = new TenantPermits();

    public CallerPermits(Kind kind) {
        this.kind = kind;
    }

    /**
     * Takes one of the caller's permits and one of its tenant's, or neither: past the caller's bound, or the tenant's,
     * a {@link LimitReachedException} (429) naming that bound and its setting.
     */
    public Permit acquire(String tenant, String subject, int perCaller, int perTenant) {
        String caller = tenant + '\u0000' + (subject == null ? "" : subject);
        if (!callers.tryAcquire(caller, perCaller)) {
            throw new LimitReachedException(kind.limit() + "-per-caller", kind.callerSetting(), perCaller,
                    "This caller (subject '" + subject + "') already holds " + perCaller + " " + kind.noun() + " open on this pod.");
        }
        if (!tenants.tryAcquire(tenant, perTenant)) {
            callers.release(caller);
            throw new LimitReachedException(kind.limit(), kind.tenantSetting(), perTenant,
                    "This tenant already holds " + perTenant + " " + kind.noun() + " open on this pod.");
        }
        return new Permit(tenant, caller);
    }

    /** How many the tenant holds now. */
    public int held(String tenant) {
        return tenants.held(tenant);
    }
}
