package dev.ductor.api;

import dev.ductor.aggregate.core.RuleValidator;
import dev.ductor.aggregate.core.ScheduleValidator;
import dev.ductor.run.bulk.BulkActions;
import dev.ductor.workflow.WorkflowDocument;
import dev.ductor.workflow.model.DefinitionParser;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The bodies the API reads as plain JSON (a workflow definition, a rule, a schedule, a bulk action) are described in the
 * OpenAPI document by records that only describe them: each lists exactly the fields its parser takes, so a generated
 * client can send every field and no field the server refuses. A field added to a parser fails here until its record
 * has it too.
 */
@Tag("unit")
class BodySchemasTest {

    @Test
    void theWorkflowDefinitionSchemaListsTheFieldsTheParserTakes() {
        assertEquals(new TreeSet<>(DefinitionParser.DOCUMENT_FIELDS), fields(WorkflowDocument.class));
        assertEquals(new TreeSet<>(DefinitionParser.NODE_FIELDS), fields(WorkflowDocument.Node.class));
        assertEquals(new TreeSet<>(DefinitionParser.RETRY_FIELDS), fields(WorkflowDocument.Retry.class));
    }

    @Test
    void theRuleSchemaListsTheFieldsTheValidatorTakes() {
        Set<String> rule = new TreeSet<>(RuleValidator.FIELDS);
        rule.add("name"); // read-only, but may be sent when it equals the path's
        assertEquals(rule, fields(RuleBody.class));
        assertEquals(RuleValidator.START_FIELDS, fields(RuleBody.Start.class));
        assertEquals(RuleValidator.SIGNAL_FIELDS, fields(RuleBody.Signal.class));
    }

    @Test
    void theScheduleSchemaListsTheFieldsTheValidatorTakes() {
        Set<String> schedule = new TreeSet<>(ScheduleValidator.FIELDS);
        schedule.add("name");
        assertEquals(schedule, fields(ScheduleBody.class));
    }

    @Test
    void theBulkActionSchemaListsTheFieldsTheResourceTakes() {
        assertEquals(new TreeSet<>(BulkActionResource.FIELDS), fields(BulkActionBody.class));
        assertEquals(new TreeSet<>(BulkActions.FILTER_FIELDS), fields(BulkActionBody.Filter.class));
    }

    private static Set<String> fields(Class<? extends Record> type) {
        return new TreeSet<>(Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList());
    }
}
