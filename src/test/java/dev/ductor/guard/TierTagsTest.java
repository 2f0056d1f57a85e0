package dev.ductor.guard;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every test class runs in exactly one tier (README, "Tests in tiers"): it carries one of the tags unit, db, api or
 * it, and the tag fits what the class is. A class without a tag would run in {@code ./mvnw verify} but in no tier's
 * command, so a newcomer running the tiers would silently skip it. Plain reflection over the compiled test classes.
 */
@Tag("unit")
class TierTagsTest {

    private static final Set<String> TIERS = Set.of("unit", "db", "api", "it");

    @Test
    void everyTestClassCarriesExactlyOneTierTagThatFitsIt() throws Exception {
        List<String> wrong = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Class<?> type : testClasses()) {
            seen.add(type.getSimpleName());
            List<String> tiers = Arrays.stream(type.getAnnotationsByType(Tag.class)).map(Tag::value)
                    .filter(TIERS::contains).toList();
            if (tiers.size() != 1) {
                wrong.add(type.getName() + " has tier tags " + tiers + ": give it exactly one of " + TIERS);
                continue;
            }
            String tier = tiers.get(0);
            boolean it = type.getSimpleName().endsWith("IT");
            boolean quarkus = type.isAnnotationPresent(QuarkusTest.class);
            if (it != tier.equals("it")) {
                wrong.add(type.getName() + " is tagged " + tier + ": the tag it belongs to the failsafe *IT classes, and only to them");
            } else if (quarkus && tier.equals("unit")) {
                wrong.add(type.getName() + " boots Quarkus (and its database): db or api, not unit");
            } else if (!quarkus && tier.equals("api")) {
                wrong.add(type.getName() + " is tagged api but boots no application to call");
            }
        }
        assertTrue(seen.size() > 90, "found only " + seen.size() + " test classes under " + classesDir() + ": " + seen);
        assertEquals(List.of(), wrong);
    }

    /** The top-level classes surefire and failsafe pick up by default (*Test, *IT), compiled beside this one. */
    private static List<Class<?>> testClasses() throws IOException, ClassNotFoundException {
        Path root = classesDir();
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String relative = root.relativize(file).toString();
                String name = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
                if (name.contains("$") || !(name.endsWith("Test") || name.endsWith("IT"))) {
                    continue;
                }
                classes.add(Class.forName(name, false, TierTagsTest.class.getClassLoader()));
            }
        }
        return classes;
    }

    private static Path classesDir() {
        try {
            return Path.of(TierTagsTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
