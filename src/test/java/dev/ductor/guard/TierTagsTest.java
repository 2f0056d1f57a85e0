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

    /**
     * The SDK's and the CLI's tests (Maven projects of their own, built by the invoker after the server) are not on this
     * classpath: their sources are read instead. Their surefire and failsafe filter on no tag, so a tag does not keep
     * them from running in their own builds; it puts them in a tier like every other test.
     */
    @Test
    void everySdkAndCliTestClassCarriesExactlyOneTierTagThatFitsIt() throws IOException {
        Path root = classesDir().getParent().getParent(); // target/test-classes -> the server's base directory
        List<String> wrong = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (String project : List.of("sdk", "cli")) {
            Path tests = root.resolve(project).resolve("src/test/java");
            assertTrue(Files.isDirectory(tests), tests + " is missing");
            try (Stream<Path> files = Files.walk(tests)) {
                for (Path file : files.sorted().toList()) {
                    String name = file.getFileName().toString();
                    if (!name.endsWith("Test.java") && !name.endsWith("IT.java")) {
                        continue;
                    }
                    String simpleName = name.substring(0, name.length() - ".java".length());
                    seen.add(project + ":" + simpleName);
                    List<String> tiers = sourceTags(Files.readString(file), simpleName).stream().filter(TIERS::contains).toList();
                    boolean it = simpleName.endsWith("IT");
                    if (tiers.size() != 1) {
                        wrong.add(project + "/" + root.resolve(project).relativize(file) + " has tier tags " + tiers
                                + ": give it exactly one of " + TIERS);
                    } else if (it != tiers.get(0).equals("it")) {
                        wrong.add(project + "/" + simpleName + " is tagged " + tiers.get(0)
                                + ": the tag it belongs to the failsafe *IT classes, and only to them");
                    } else if (!it && !tiers.get(0).equals("unit")) {
                        wrong.add(project + "/" + simpleName + " runs in surefire without the server: unit, not " + tiers.get(0));
                    }
                }
            }
        }
        assertTrue(seen.size() >= 7, "found only " + seen + " under sdk/ and cli/");
        assertEquals(List.of(), wrong);
    }

    /** The values of the {@code @Tag} annotations on the top-level class {@code simpleName} of a source file. */
    private static List<String> sourceTags(String source, String simpleName) {
        java.util.regex.Matcher declaration = java.util.regex.Pattern.compile(
                "^(?:public |final |abstract )*class " + simpleName + "\\b", java.util.regex.Pattern.MULTILINE).matcher(source);
        if (!declaration.find()) {
            return List.of();
        }
        // The annotations right above the declaration (after the imports and any Javadoc).
        String head = source.substring(0, declaration.start());
        int lastImport = Math.max(head.lastIndexOf("\nimport "), head.lastIndexOf("*/"));
        java.util.regex.Matcher tag = java.util.regex.Pattern.compile("@Tag\\(\\s*\"([^\"]*)\"\\s*\\)")
                .matcher(head.substring(Math.max(0, lastImport)));
        List<String> tags = new ArrayList<>();
        while (tag.find()) {
            tags.add(tag.group(1));
        }
        return tags;
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
