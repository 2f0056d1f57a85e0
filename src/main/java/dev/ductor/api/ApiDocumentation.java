package dev.ductor.api;

import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.examples.Example;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Completes the OpenAPI document from the shared parts of {@code META-INF/openapi.yaml}: each named response and example
 * ({@code $ref: '#/components/responses/run-not-found'}) is written out in place, so each operation in
 * {@code /q/openapi} reads complete on its own, and the shared parts themselves are dropped from the components (a
 * component nothing refers to is what linters and client generators warn about).
 */
public class ApiDocumentation implements OASFilter {

    private static final String RESPONSES = "#/components/responses/";
    private static final String EXAMPLES = "#/components/examples/";
    /** Quarkus adds these to every {@code @RolesAllowed} operation, bare; ours say it as problem+json. */
    private static final Map<String, String> SECURITY_ANSWERS = Map.of("401", "unauthorized", "403", "forbidden");

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Map<String, APIResponse> responses = openAPI.getComponents().getResponses();
        Map<String, Example> examples = openAPI.getComponents().getExamples();
        responses.values().forEach(response -> inline(response.getContent(), examples));
        openAPI.getPaths().getPathItems().values().forEach(path -> path.getOperations().values().forEach(operation -> {
            new LinkedHashMap<>(operation.getResponses().getAPIResponses()).forEach((code, response) -> {
                if (SECURITY_ANSWERS.containsKey(code) && response.getContent() == null) {
                    operation.getResponses().addAPIResponse(code, require(responses, SECURITY_ANSWERS.get(code)));
                } else if (response.getRef() != null) {
                    operation.getResponses().addAPIResponse(code, require(responses, response.getRef().substring(RESPONSES.length())));
                } else {
                    inline(response.getContent(), examples);
                }
            });
            if (operation.getRequestBody() != null) {
                inline(operation.getRequestBody().getContent(), examples);
            }
        }));
        // Written out in every operation above: left here too, they would be components nothing refers to.
        openAPI.getComponents().setResponses(null);
        openAPI.getComponents().setExamples(null);
    }

    private static void inline(Content content, Map<String, Example> examples) {
        if (content == null) {
            return;
        }
        content.getMediaTypes().values().stream().filter(media -> media.getExamples() != null).forEach(media -> {
            Map<String, Example> inlined = new LinkedHashMap<>();
            media.getExamples().forEach((name, example) -> inlined.put(name, example.getRef() == null
                    ? example : require(examples, example.getRef().substring(EXAMPLES.length()))));
            media.setExamples(inlined);
        });
    }

    private static <T> T require(Map<String, T> components, String name) {
        T found = components.get(name);
        if (found == null) {
            throw new IllegalStateException("META-INF/openapi.yaml has no component '" + name + "'");
        }
        return found;
    }
}
