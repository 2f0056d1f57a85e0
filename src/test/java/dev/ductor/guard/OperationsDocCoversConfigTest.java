package dev.ductor.guard;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ductor.config.DuctorConfig;
import io.smallrye.config.ConfigMapping;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/operations.md is the configuration reference: every {@code ductor.*} key of {@link DuctorConfig} must
 * appear there, so a new setting cannot ship undocumented. Keys are derived from the mapping the way SmallRye
 * Config does (method names in kebab case unless {@code @WithName} names the key, nested groups as segments, a map as {@code .<name>}, the tier weights'
 * as {@code .<tier>}).
 */
@Tag("unit")
class OperationsDocCoversConfigTest {

    @Test
    void everyDuctorKeyIsDocumentedInOperationsMd() throws Exception {
        String doc = Files.readString(Path.of("docs/operations.md"));
        List<String> keys = keys(DuctorConfig.class.getAnnotation(ConfigMapping.class).prefix(), DuctorConfig.class);
        assertTrue(keys.size() >= 25, "the walk found the mapping's keys: " + keys);
        List<String> missing = keys.stream().filter(k -> !doc.contains("`" + k + "`")).toList();
        assertEquals(List.of(), missing, "ductor.* keys missing from docs/operations.md (as `key`)");
    }

    @Test
    void theWalkNamesKeysAsSmallRyeConfigDoes() {
        List<String> keys = keys("ductor", DuctorConfig.class);
        assertTrue(keys.contains("ductor.coordinator.max-non-progressing-requeues"), keys.toString());
        assertTrue(keys.contains("ductor.queue.tier-weights.<tier>"), keys.toString());
        assertTrue(keys.contains("ductor.pod-name"), keys.toString());
        assertTrue(keys.contains("ductor.embedded.data-dir"), keys.toString());
        assertTrue(keys.contains("ductor.retention.default"), "@WithName wins over the method's name: " + keys);
    }

    private static List<String> keys(String prefix, Class<?> group) {
        List<String> keys = new ArrayList<>();
        for (Method method : group.getDeclaredMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.isDefault() || method.getParameterCount() > 0) {
                continue;
            }
            io.smallrye.config.WithName named = method.getAnnotation(io.smallrye.config.WithName.class);
            String key = prefix + "." + (named != null ? named.value() : kebab(method.getName()));
            Class<?> type = method.getReturnType();
            if (type.isInterface() && type.getEnclosingClass() == DuctorConfig.class) {
                keys.addAll(keys(key, type));
            } else if (Map.class.isAssignableFrom(type)) {
                keys.add(key + (method.getName().equals("tierWeights") ? ".<tier>" : ".<name>"));
            } else {
                keys.add(key);
            }
        }
        return keys;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }
}
