package dev.ductor.validation;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.ductor.error.BadRequestException;
import jakarta.inject.Singleton;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Path;
import jakarta.validation.TraversableResolver;
import jakarta.validation.Validator;
import jakarta.validation.ValidatorFactory;

import java.lang.annotation.ElementType;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Reads a request body into its record, then validates the record with Hibernate Validator. Strictly, as the API
 * always has: an unknown field is refused and named, a number is never read from text nor text from a number or a
 * boolean, a fraction is no whole number, and a null is refused where the caller says it may only be left out.
 * Trailing JSON and exact numbers are the application's ({@code config/StrictJson}) and hold here too.
 *
 * <p>The strictness belongs to these records alone: the mapper is a copy, so workflow and rule definitions (whose own
 * parsers report every violation at once) and the answers are read and written as before. A Jackson mapping error
 * becomes a 400 here, and so does a constraint violation ({@link Violations}, as for a path parameter); either names
 * its field.
 */
@Singleton
public class Bodies {

    private static final JsonNode NO_FIELDS = JsonNodeFactory.instance.objectNode();

    private final ObjectMapper strict;
    private final Validator validator;

    Bodies(ObjectMapper mapper, ValidatorFactory validators) {
        // Every property of these records is reachable: they are no JPA entities. The application's validator asks JPA,
        // property by property, whether each is loaded: work for nothing on every run start.
        this.validator = validators.usingContext().traversableResolver(new EveryPropertyReachable()).getValidator();
        strict = mapper.copy().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        strict.coercionConfigDefaults().setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
        for (LogicalType type : List.of(LogicalType.Textual, LogicalType.Boolean, LogicalType.Integer)) {
            for (CoercionInputShape shape : List.of(CoercionInputShape.Integer, CoercionInputShape.Float,
                    CoercionInputShape.Boolean, CoercionInputShape.String)) {
                strict.coercionConfigFor(type).setCoercion(shape, CoercionAction.Fail);
            }
        }
        // A payload sent as null is no payload, as when it is left out (not a JSON null to store).
        strict.configOverride(JsonNode.class).setSetterInfo(JsonSetter.Value.forValueNulls(Nulls.SKIP));
    }

    /**
     * The body as {@code type}, or a 400 naming the first field that is wrong. {@code sentNotNull}: fields a client may
     * leave out but not send as null, where a null would read as "no change" and hide a mistake.
     */
    public <T extends Record> T read(JsonNode body, Class<T> type, String... sentNotNull) {
        if (body == null || !body.isObject()) {
            throw new BadRequestException(null, "the body must be a JSON object");
        }
        T value;
        try {
            value = strict.treeToValue(body, type);
        } catch (JsonProcessingException e) {
            throw refusal(e);
        }
        for (String field : sentNotNull) {
            if (body.path(field).isNull()) {
                throw new BadRequestException(field, field + " may be left out, but not sent as null");
            }
        }
        Set<ConstraintViolation<T>> violations = validator.validate(value);
        if (!violations.isEmpty()) {
            throw Violations.first(violations);
        }
        return value;
    }

    /** For a body that may be left out altogether (a run start): none reads as {@code {}}. */
    public <T extends Record> T readOptional(JsonNode body, Class<T> type) {
        return read(body == null || body.isNull() || body.isMissingNode() ? NO_FIELDS : body, type);
    }

    private static final class EveryPropertyReachable implements TraversableResolver {
        @Override
        public boolean isReachable(Object bean, Path.Node property, Class<?> rootBeanType, Path pathToProperty,
                                   ElementType elementType) {
            return true;
        }

        @Override
        public boolean isCascadable(Object bean, Path.Node property, Class<?> rootBeanType, Path pathToProperty,
                                    ElementType elementType) {
            return true;
        }
    }

    private static BadRequestException refusal(JsonProcessingException e) {
        List<JsonMappingException.Reference> path = e instanceof JsonMappingException mapping ? mapping.getPath() : List.of();
        String field = path.stream().map(JsonMappingException.Reference::getFieldName).filter(Objects::nonNull)
                .collect(Collectors.joining("."));
        if (e instanceof UnrecognizedPropertyException unknown) {
            Set<String> allowed = new TreeSet<>();
            unknown.getKnownPropertyIds().forEach(id -> allowed.add(id.toString()));
            return new BadRequestException(field, "unknown field '" + field + "' (allowed: " + String.join(", ", allowed) + ")");
        }
        if (field.isEmpty()) {
            return new BadRequestException(null, "the body must be a JSON object");
        }
        return new BadRequestException(field, e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null
                ? field + " must be " + kind(mismatch.getTargetType())
                : field + " is out of range or of the wrong type");
    }

    private static String kind(Class<?> type) {
        if (type == String.class) {
            return "a string";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == UUID.class) {
            return "a UUID";
        }
        if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
            return "a whole number"; // the only numbers of these bodies
        }
        return Collection.class.isAssignableFrom(type) ? "an array" : "an object";
    }
}
