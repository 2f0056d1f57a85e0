package dev.ductor.validation;

import dev.ductor.error.BadRequestException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;

import java.util.Collection;
import java.util.Comparator;
import java.util.StringJoiner;

/**
 * Words broken constraints, of a body's record or of a path or query parameter, as the one 400 a client sees: naming
 * the field, "field + message" ("idempotencyKey must be ..."). One at a time, as a client fixes them, and the same one
 * for the same request: the first by path.
 */
public final class Violations {

    private Violations() {
    }

    public static BadRequestException first(Collection<? extends ConstraintViolation<?>> violations) {
        ConstraintViolation<?> first = violations.stream()
                .min(Comparator.comparing(violation -> violation.getPropertyPath().toString())).orElseThrow();
        String field = field(first.getPropertyPath());
        return new BadRequestException(field, field + " " + first.getMessage());
    }

    /** {@code nodes.gate.action}: the body's field names and map keys; a parameter's name; no list indexes. */
    private static String field(Path path) {
        StringJoiner field = new StringJoiner(".");
        for (Path.Node node : path) {
            if (node.getKey() != null) {
                field.add(node.getKey().toString());
            }
            if (node.getKind() == ElementKind.PROPERTY || node.getKind() == ElementKind.PARAMETER) {
                field.add(node.getName());
            }
        }
        return field.toString();
    }
}
