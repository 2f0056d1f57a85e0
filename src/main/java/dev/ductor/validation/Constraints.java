package dev.ductor.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.aggregate.rule.EventIngestion;
import dev.ductor.config.JsonLimits;
import dev.ductor.config.Tiers;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import jakarta.validation.constraints.Pattern;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.RECORD_COMPONENT;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

/**
 * The checks of request bodies and path names that Jakarta's own constraints do not express. A message is what
 * follows the field's name in the answer: {@link Violations} words a violation as "idempotencyKey must be ...".
 */
public final class Constraints {

    private Constraints() {
    }

    /** Text a person or a program chose: not blank, and short enough for a column, a log line or a metric. */
    @Constraint(validatedBy = Text.Check.class)
    @Target({RECORD_COMPONENT, FIELD, PARAMETER, TYPE_USE})
    @Retention(RUNTIME)
    public @interface Text {
        int max();

        String message() default "must be a non-blank string of at most {max} characters";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};

        class Check implements ConstraintValidator<Text, String> {
            private int max;

            @Override
            public void initialize(Text text) {
                max = text.max();
            }

            @Override
            public boolean isValid(String value, ConstraintValidatorContext context) {
                return value == null || (!value.isBlank() && value.length() <= max);
            }
        }
    }

    /**
     * A client's run or signal idempotency key. Refused when it could be one a rule derives for an event
     * ({@link EventIngestion#DERIVED_KEY_PREFIX}), or a client could take a rule's run or signal for itself.
     */
    @Text(max = 200)
    @Constraint(validatedBy = ClientKey.Check.class)
    @Target({RECORD_COMPONENT, FIELD, PARAMETER})
    @Retention(RUNTIME)
    public @interface ClientKey {
        String message() default "must not start with '" + EventIngestion.DERIVED_KEY_PREFIX
                + "': that prefix is reserved for the runs and signals rules start for events";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};

        class Check implements ConstraintValidator<ClientKey, String> {
            @Override
            public boolean isValid(String value, ConstraintValidatorContext context) {
                return value == null || !value.startsWith(EventIngestion.DERIVED_KEY_PREFIX);
            }
        }
    }

    /** One of the configured tiers ({@code ductor.queue.tier-weights}), not a list written here. */
    @Constraint(validatedBy = KnownTier.Check.class)
    @Target({RECORD_COMPONENT, FIELD, PARAMETER})
    @Retention(RUNTIME)
    public @interface KnownTier {
        String message() default "must be one of the configured tiers";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};

        @Singleton
        class Check implements ConstraintValidator<KnownTier, String> {
            // Looked up on use: Hibernate Validator makes its validators at static init, before the ductor.* configuration.
            @Inject
            Provider<Tiers> configured;

            @Override
            public boolean isValid(String value, ConstraintValidatorContext context) {
                if (value == null) {
                    return true; // the default tier: no lookup of the configuration on every start that names none
                }
                Tiers tiers = configured.get();
                if (tiers.contains(value)) {
                    return true;
                }
                context.disableDefaultConstraintViolation();
                context.buildConstraintViolationWithTemplate("must be one of " + tiers.describe()).addConstraintViolation();
                return false;
            }
        }
    }

    /**
     * A payload (run input, signal payload, task output, event payload) as JSON text, capped (docs/operations.md) so
     * one request cannot bloat a run row or the inbox; the HTTP layer caps whole bodies at 1 MiB. Its nesting is capped
     * too ({@link JsonLimits#MAX_PAYLOAD_DEPTH}), below what stored documents may reach.
     */
    @Constraint(validatedBy = MaxJsonSize.Check.class)
    @Target({RECORD_COMPONENT, FIELD, PARAMETER})
    @Retention(RUNTIME)
    public @interface MaxJsonSize {
        int kib() default 256;

        String message() default "is larger than {kib} KiB";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};

        class Check implements ConstraintValidator<MaxJsonSize, JsonNode> {
            private int chars;

            @Override
            public void initialize(MaxJsonSize size) {
                chars = size.kib() * 1024;
            }

            @Override
            public boolean isValid(JsonNode value, ConstraintValidatorContext context) {
                if (value == null) {
                    return true;
                }
                if (!JsonLimits.nestsAtMost(value, JsonLimits.MAX_PAYLOAD_DEPTH)) {
                    context.disableDefaultConstraintViolation();
                    context.buildConstraintViolationWithTemplate("nests deeper than " + JsonLimits.MAX_PAYLOAD_DEPTH + " levels")
                            .addConstraintViolation();
                    return false;
                }
                return JsonSizeBound.atMost(value, chars) <= chars || value.toString().length() <= chars;
            }

        }
    }

    /** Names of workflows, pools and rules appear in URLs, logs and metrics: a safe alphabet. */
    @Pattern(regexp = "[A-Za-z0-9_.-]{1,100}")
    @ReportAsSingleViolation
    @Constraint(validatedBy = {})
    @Target({PARAMETER, FIELD})
    @Retention(RUNTIME)
    public @interface Name {
        String message() default "must be 1-100 characters of A-Z a-z 0-9 _ . -";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};
    }

    /** A whole number sent as text (a query parameter), to be read with {@code Integer.valueOf}. */
    @Pattern(regexp = "-?[0-9]{1,9}")
    @ReportAsSingleViolation
    @Constraint(validatedBy = {})
    @Target({PARAMETER, FIELD})
    @Retention(RUNTIME)
    public @interface WholeNumber {
        String message() default "must be a whole number";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};
    }
}
