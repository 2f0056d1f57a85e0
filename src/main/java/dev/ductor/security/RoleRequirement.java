package dev.ductor.security;

import jakarta.annotation.security.RolesAllowed;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Why a request was refused with 403, in words: the roles the route allows (its {@code @RolesAllowed}, the method's
 * over its class's) beside the roles the caller's token carries. A 403 that only said "not allowed" left an admin
 * wondering why starting a run failed; naming both sides tells them which token to use.
 */
public final class RoleRequirement {

    private RoleRequirement() {
    }

    /** The roles {@code method} allows, sorted; empty when neither it nor its class names any. */
    public static List<String> of(Method method) {
        if (method == null) {
            return List.of();
        }
        RolesAllowed allowed = method.getAnnotation(RolesAllowed.class);
        if (allowed == null) {
            allowed = method.getDeclaringClass().getAnnotation(RolesAllowed.class);
        }
        return allowed == null ? List.of() : List.copyOf(new TreeSet<>(List.of(allowed.value())));
    }

    /** The caller's roles, sorted. */
    public static List<String> sorted(Collection<String> roles) {
        return List.copyOf(new TreeSet<>(roles));
    }

    /** E.g. "this needs the role client; your token has admin". */
    public static String explain(Collection<String> needed, Collection<String> held) {
        String need = needed.isEmpty() ? "this needs a role your token does not have"
                : "this needs the role " + String.join(" or ", needed);
        String have = held.isEmpty() ? "your token has no role" : "your token has " + String.join(", ", new TreeSet<>(held));
        return need + "; " + have;
    }
}
