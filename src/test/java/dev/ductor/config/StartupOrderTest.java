package dev.ductor.config;

import dev.ductor.run.coordinator.CoordinatorLoop;
import dev.ductor.worker.InProcessWorker;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coordinator and worker loops start only once the rest of start-up succeeded: every other observer of
 * StartupEvent in Ductor runs before them (a lower priority). Quarkus fires no ShutdownEvent after a failed start,
 * so loops started before a failure would run on, unstoppable, and keep the JVM from exiting. Plain reflection over
 * the compiled classes, so an observer added later is checked too.
 */
@Tag("unit")
class StartupOrderTest {

    private static final int DEFAULT = Interceptor.Priority.APPLICATION + 500;
    private static final Set<Class<?>> LOOPS = Set.of(CoordinatorLoop.class, InProcessWorker.class);

    @Test
    void everyStartupObserverButTheLoopsRunsBeforeTheLoops() throws Exception {
        List<String> loops = new ArrayList<>();
        List<String> late = new ArrayList<>();
        for (Method observer : startupObservers()) {
            String name = observer.getDeclaringClass().getSimpleName() + "." + observer.getName();
            int priority = priority(observer);
            if (LOOPS.contains(observer.getDeclaringClass())) {
                loops.add(name);
                assertTrue(priority >= DEFAULT, name + " must start at the default priority or later");
            } else if (priority >= DEFAULT) {
                late.add(name + " (priority " + priority + ")");
            }
        }
        assertEquals(2, loops.size(), "both loops observe StartupEvent: " + loops);
        assertEquals(List.of(), late, "start-up work that runs at or after the loops (use @Priority(StartupOrder.BEFORE_LOOPS))");
    }

    private static int priority(Method observer) {
        for (Parameter parameter : observer.getParameters()) {
            if (parameter.isAnnotationPresent(Observes.class)) {
                Priority priority = parameter.getAnnotation(Priority.class);
                return priority == null ? DEFAULT : priority.value();
            }
        }
        throw new AssertionError(observer + " observes nothing");
    }

    private static List<Method> startupObservers() throws IOException, URISyntaxException, ClassNotFoundException {
        URL root = CoordinatorLoop.class.getProtectionDomain().getCodeSource().getLocation();
        Path classes = Paths.get(root.toURI());
        List<Method> observers = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes.resolve("dev/ductor"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                for (Method method : Class.forName(name, false, StartupOrderTest.class.getClassLoader()).getDeclaredMethods()) {
                    for (Parameter parameter : method.getParameters()) {
                        if (parameter.isAnnotationPresent(Observes.class) && parameter.getType() == StartupEvent.class) {
                            observers.add(method);
                        }
                    }
                }
            }
        }
        return observers;
    }
}
