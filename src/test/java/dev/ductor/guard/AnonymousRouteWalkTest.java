package dev.ductor.guard;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deny by default: every JAX-RS route of the application, found by reflection over the classes annotated
 * {@code @Path} (so a route added later is walked too, annotated or not), answers an anonymous caller 401 as
 * problem+json naming the Bearer scheme. {@link UnannotatedProbeResource} is a route with no security annotation:
 * only {@code quarkus.security.jaxrs.deny-unannotated-endpoints} keeps it closed. The probes, the metrics and the
 * OpenAPI document stay open.
 */
@QuarkusTest
@Tag("api")
class AnonymousRouteWalkTest {

    private static final Pattern TEMPLATE = Pattern.compile("\\{\\s*(\\w+)\\s*(?::[^}]*)?}");

    record Route(String method, String path) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    @Test
    void everyJaxRsRouteIs401ForAnAnonymousCaller() throws Exception {
        List<Route> routes = routes();
        assertTrue(routes.size() >= 20, "too few routes found, is the scan broken? " + routes);
        assertTrue(routes.contains(new Route("GET", "/api/v1/test-probes/unannotated")), routes::toString);
        List<String> open = new ArrayList<>();
        for (Route route : routes) {
            if (OPEN_BY_DESIGN.contains(route)) {
                continue;
            }
            String path = concrete(route.path());
            Response response = given().contentType(ContentType.JSON).body("{}").request(route.method(), path);
            String contentType = response.contentType();
            if (response.statusCode() != 401 || contentType == null || !contentType.startsWith("application/problem+json")
                    || response.header("WWW-Authenticate") == null) {
                open.add(route + " (" + path + "): " + response.statusCode() + " " + contentType + " " + response.asString());
            } else {
                assertEquals(401, response.jsonPath().getInt("status"), route::toString);
            }
        }
        assertEquals(List.of(), open, "routes that did not answer an anonymous caller 401 problem+json");
    }

    /**
     * The console's dev sign-in hands out the dev tokens without a token ({@code @PermitAll}), only where dev tokens
     * are enabled (as in tests) and a 404 anywhere else: DevTokenResourceTest covers both.
     */
    static final List<Route> OPEN_BY_DESIGN = List.of(new Route("GET", "/api/v1/dev-tokens"));

    @Test
    void theOnlyOpenApiRouteIsTheDevSignIn() throws Exception {
        assertTrue(routes().containsAll(OPEN_BY_DESIGN), "an open-by-design route is gone: drop it from OPEN_BY_DESIGN");
        Response response = given().get("/api/v1/dev-tokens");
        assertEquals(200, response.statusCode(), response::asString);
        assertEquals("demo", response.jsonPath().getString("tenant"));
    }

    @Test
    void probesMetricsAndTheApiDocumentStayOpen() {
        for (String path : List.of("/q/health/live", "/q/health/ready", "/q/health", "/q/metrics", "/q/openapi")) {
            assertEquals(200, given().get(path).statusCode(), path);
        }
    }

    /** Every resource method of every {@code @Path} class under dev.ductor, as method and path template. */
    static List<Route> routes() throws IOException, URISyntaxException {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        TreeSet<String> classNames = new TreeSet<>();
        for (URL root : Collections.list(loader.getResources("dev/ductor"))) {
            if (!"file".equals(root.getProtocol())) {
                continue;
            }
            java.nio.file.Path base = Paths.get(root.toURI()).getParent().getParent();
            try (Stream<java.nio.file.Path> files = Files.walk(Paths.get(root.toURI()))) {
                files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().contains("$"))
                        .map(f -> base.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", ""))
                        .forEach(classNames::add);
            }
        }
        List<Route> routes = new ArrayList<>();
        for (String name : classNames) {
            Class<?> type;
            try {
                type = Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError notLoadable) {
                continue;
            }
            Path classPath = type.getAnnotation(Path.class);
            if (classPath == null || type.isInterface()) {
                continue;
            }
            for (Method method : type.getMethods()) {
                String httpMethod = httpMethod(method);
                Path methodPath = method.getAnnotation(Path.class);
                if (httpMethod == null) {
                    assertTrue(methodPath == null, "sub-resource locators are not walked: " + method);
                    continue;
                }
                routes.add(new Route(httpMethod, join(classPath.value(), methodPath == null ? "" : methodPath.value())));
            }
        }
        return routes;
    }

    private static String httpMethod(Method method) {
        for (Annotation annotation : method.getAnnotations()) {
            HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (http != null) {
                return http.value();
            }
        }
        return null;
    }

    private static String join(String a, String b) {
        String joined = ("/" + a + "/" + b).replaceAll("/+", "/");
        return joined.length() > 1 && joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
    }

    /** The template with a plausible value per parameter: ids that parse, names that could exist. */
    private static String concrete(String template) {
        Matcher m = TEMPLATE.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String param = m.group(1).toLowerCase();
            String value = param.endsWith("runid") ? UUID.randomUUID().toString() : param.endsWith("taskid") ? "1" : "x";
            m.appendReplacement(out, value);
        }
        m.appendTail(out);
        assertNotNull(out.toString());
        return out.toString();
    }
}
