package dev.ductor.console;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The console is static files under {@code META-INF/resources/console/}, served by Quarkus as they are. Its pages
 * have History API addresses ({@code /console/runs/<id>}, {@code /console/workflows/order}) that are no file: this
 * Vert.x route answers every such path with {@code console/index.html}, whose router then draws the page, so a deep
 * link or a reload works. Paths under css/, js/ and img/ (and top-level .html/.svg/.ico) are files and are left to
 * the static handler (a missing one stays a 404); workflow names may hold dots, so a dot alone does not make a file. A Vert.x route rather than a JAX-RS resource: the page is public (it holds no data; its API calls
 * carry the token), and JAX-RS endpoints here are denied unless annotated, walked by the route tests as API routes.
 */
@ApplicationScoped
public class ConsoleRoutes {

    /**
     * The console holds a bearer token, so: only its own scripts, styles and API (no inline script, no eval, nothing
     * from elsewhere), never framed by another site, no file read as another type, no address (run ids) sent on in a
     * Referer. Inline styles are set through the CSSOM (js/ui.js), which the policy allows.
     */
    static final Map<String, String> SECURITY_HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
                    + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
            "X-Frame-Options", "DENY",
            "X-Content-Type-Options", "nosniff",
            "Referrer-Policy", "no-referrer");

    static final Pattern ASSET = Pattern.compile("/console/(css|js|img)/.*|/console/[^/]+\\.(html|svg|ico)");

    private volatile String index;

    void routes(@Observes Router router) {
        router.getWithRegex("/console(/.*)?").order(-10).handler(ctx -> {
            SECURITY_HEADERS.forEach(ctx.response()::putHeader); // kept when the static handler serves a file
            if (ASSET.matcher(ctx.normalizedPath()).matches()) {
                ctx.next();
                return;
            }
            ctx.response()
                    .putHeader("Content-Type", "text/html; charset=utf-8")
                    .putHeader("Cache-Control", "no-cache")
                    .end(index());
        });
    }

    private String index() {
        String page = index;
        if (page == null) {
            try (InputStream in = Thread.currentThread().getContextClassLoader()
                    .getResourceAsStream("META-INF/resources/console/index.html")) {
                if (in == null) {
                    throw new IllegalStateException("console/index.html is missing from the class path");
                }
                page = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            index = page;
        }
        return page;
    }
}
