package dev.ductor.console;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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

    static final Pattern ASSET = Pattern.compile("/console/(css|js|img)/.*|/console/[^/]+\\.(html|svg|ico)");

    private volatile String index;

    void routes(@Observes Router router) {
        router.getWithRegex("/console(/.*)?").order(-10).handler(ctx -> {
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
