package dev.ductor.guard;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.aggregate.rule.EventReceipt;
import dev.ductor.config.JsonCodec;
import dev.ductor.error.DuctorException;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.faulttolerance.api.CustomBackoff;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fails the build when the main code does something a native executable cannot do without help (see
 * {@link NativeImageScanner} for the rules): hands Jackson a class that is not registered for reflection outside
 * a resource signature, hands it something whose type nobody has declared, calls reflection, class loading by name,
 * proxies, ServiceLoader or class-path resources without an allowance saying why that is fine, or reads the clock,
 * randomness or the environment, or starts threads, while a class initialises. Plain JUnit on the compiled
 * classes: no application, no database, no GraalVM; it says nothing about whether a native build succeeds, only
 * that these known causes of native-only failures are absent or accounted for.
 *
 * <p>The scanner checks itself against known mistakes compiled with this test ({@link Mistakes}), so it cannot rot
 * into one that passes everything.
 */
@Tag("unit")
class NativeImageReadinessTest {

    /**
     * Sinks and components whose type the bytecode does not show, with what a person found they hold (the listed
     * types are then checked like any other payload). A new opaque sink fails the test until it is added here;
     * every entry must still match something.
     */
    static final Map<String, NativeImageScanner.Declaration> DECLARED = new LinkedHashMap<>();

    /** Forbidden calls that are fine, with why. Every entry must still match a call. */
    static final Map<String, String> ALLOWED_CALLS = new LinkedHashMap<>();

    /** Methods that hand an {@code Object} parameter on to Jackson: what their callers pass is checked. */
    static final List<NativeImageScanner.Forwarder> FORWARDERS = List.of(
            new NativeImageScanner.Forwarder("dev.ductor.aggregate.pool.PoolService", "put", 6),
            new NativeImageScanner.Forwarder("dev.ductor.aggregate.pool.PoolService", "lostRace", 3),
            new NativeImageScanner.Forwarder("dev.ductor.aggregate.pool.PoolService", "conflict", 3),
            new NativeImageScanner.Forwarder("dev.ductor.api.Versions", "tagged", 0),
            new NativeImageScanner.Forwarder("dev.ductor.api.Versions", "put", 2),
            new NativeImageScanner.Forwarder("dev.ductor.error.VersionConflictException", "requireNoVersion", 2),
            new NativeImageScanner.Forwarder("dev.ductor.error.VersionConflictException", "requireVersion", 4));

    static {
        declare("dev.ductor.config.JsonCodec#write -> ObjectMapper.writeValueAsString",
                "JsonCodec.write's argument: every call of JsonCodec.write is checked as a payload of its own");
        declare("dev.ductor.config.JsonCodec#read -> ObjectMapper.readValue",
                "the class a JsonCodec.read caller names: every call of JsonCodec.read is checked (there are none today)");
        declare("dev.ductor.api.Problem#extensions",
                "the extension members, set only through Problem.of or the constructor, whose every call is checked;"
                        + " ProblemMapper passes DuctorException.extensions(), whose every override is checked");
        declare("dev.ductor.api.Problem#of -> Problem.<init>", "a copy of the map Problem.of was given (see Problem#extensions)");
        declare("dev.ductor.api.ProblemMapper#ductor -> Problem.of",
                "DuctorException.extensions(): the return value of every override is checked");
        declare("dev.ductor.error.BadRequestException#extensions -> return", "field: the name of the bad field, a String");
        declare("dev.ductor.error.IdempotencyKeyReusedException#extensions -> return",
                "idempotencyKey (the reused key) and field (\"idempotencyKey\"), both Strings");
        declare("dev.ductor.error.UndeclaredSignalException#extensions -> return",
                "runId, signal and field (Strings) and declaredSignals (a List of Strings)");
        declare("dev.ductor.error.ConflictException#extensions -> return",
                "the map its constructor was given: every ConflictException constructor call, subclasses' included, is checked");
        declare("dev.ductor.error.VersionConflictException#extensions -> return",
                "saved (Boolean), expectedVersion and currentVersion (Long), current and rejected: the constructor's"
                        + " Object arguments, checked at every call");
        declare("dev.ductor.aggregate.pool.PoolService#conflict -> ConflictException.<init>#2",
                "saved (Boolean), expectedVersion and currentVersion (Long), current (this PoolView or null) and rejected"
                        + " (conflict's sent, checked at its callers)", dev.ductor.aggregate.pool.PoolView.class);
        declare("dev.ductor.aggregate.pool.PoolService#conflict -> VersionConflictException.<init>#4",
                "rejected: conflict's sent, checked at its callers");
        declare("dev.ductor.aggregate.pool.PoolService#put -> PoolService.conflict#3", "put's sent, checked at its callers");
        declare("dev.ductor.validation.Bodies#read -> ObjectMapper.treeToValue",
                "the request body record its callers name (each resource's, registered beside it)",
                dev.ductor.api.WorkflowResource.StartBody.class, dev.ductor.api.RunResource.SignalBody.class,
                dev.ductor.api.RunResource.PatchBody.class, dev.ductor.api.RunResource.NodeAction.class,
                dev.ductor.api.PoolResource.PoolBody.class, dev.ductor.api.EventResource.EventBody.class,
                dev.ductor.api.TaskResource.ClaimBody.class, dev.ductor.api.TaskResource.HeartbeatBody.class,
                dev.ductor.api.TaskResource.CompleteBody.class, dev.ductor.api.TaskResource.FailBody.class,
                dev.ductor.api.RunResource.ResetBody.class, dev.ductor.api.TaskResource.ReleaseBody.class,
                dev.ductor.api.TaskResource.ReportBody.class);
        declare("dev.ductor.error.VersionConflictException#onLostRace -> VersionConflictException.<init>#3",
                "current: the resource its callers read afresh after a lost race (WorkflowResource, RuleResource, RunResource)",
                dev.ductor.workflow.StoredWorkflow.class, dev.ductor.aggregate.rule.RuleView.class, dev.ductor.run.read.RunView.class);
        declare("dev.ductor.error.VersionConflictException#onLostRace -> VersionConflictException.<init>#4",
                "rejected: the request body its callers pass, a JsonNode", JsonNode.class);
        declare("dev.ductor.aggregate.pool.PoolService#lostRace -> PoolService.conflict#3", "lostRace's sent, checked at its callers");
        declare("dev.ductor.api.Versions#tagged -> Response.ok", "tagged's entity, checked at its callers");
        declare("dev.ductor.api.Versions#put -> ResponseBuilder.entity", "put's entity, checked at its callers");
        declare("dev.ductor.error.VersionConflictException#requireNoVersion -> VersionConflictException.<init>#4",
                "rejected: requireNoVersion's, checked at its callers");
        declare("dev.ductor.error.VersionConflictException#requireVersion -> VersionConflictException.<init>#4",
                "rejected: requireVersion's, checked at its callers");
        declare("dev.ductor.error.VersionConflictException#requireVersion -> VersionConflictException.<init>#3",
                "current: what its callers' suppliers read (RuleService, ScheduleService, PoolService, WorkflowService,"
                        + " RunOperations)", dev.ductor.aggregate.rule.RuleView.class,
                dev.ductor.aggregate.schedule.ScheduleView.class, dev.ductor.aggregate.pool.PoolView.class,
                dev.ductor.workflow.StoredWorkflow.class, dev.ductor.run.read.RunView.class);
        declare("dev.ductor.aggregate.pool.PoolService#put -> VersionConflictException.requireVersion#4",
                "put's sent, checked at its callers");
        declare("dev.ductor.run.command.PatchRefusedException#<init> -> ConflictException.<init>#2",
                "the map one of its two factories built (both declared below)");
        declare("dev.ductor.run.command.PatchRefusedException#runTerminal -> PatchRefusedException.<init>#2",
                "runId (a UUID), runStatus (a String), saved (Boolean), current (the RunView) and rejected (the PATCH body,"
                        + " a JsonNode)", dev.ductor.run.read.RunView.class);
        declare("dev.ductor.api.BulkActionResource#create -> Response.ok",
                "a dry run's answer: matched (an Integer) and sample (a List of Strings)");
        declare("dev.ductor.api.BulkActionResource#create -> Response.accepted",
                "the job's progress: id, action, status, createdBy and toRevision (Strings), filter (a JsonNode), matched,"
                        + " done, skipped and failed (Integers), createdAt and updatedAt (Strings)", JsonNode.class);
        declare("dev.ductor.run.bulk.BulkActions#lambda$cancel$1 -> ConflictException.<init>#2",
                "the job's progress as above, under current, and its id (a String)", JsonNode.class);
        declare("dev.ductor.run.command.PatchRefusedException#reset -> PatchRefusedException.<init>#2",
                "runId (a UUID), saved (Boolean), current (the RunView) and rejected (the reset body, a JsonNode)",
                dev.ductor.run.read.RunView.class);
        declare("dev.ductor.run.command.PatchRefusedException#nodeAction -> PatchRefusedException.<init>#2",
                "node and action (Strings), refusals (a List of Maps of Strings), saved (Boolean), current (the RunView)"
                        + " and rejected (the PATCH body, a JsonNode)", dev.ductor.run.read.RunView.class);

        ALLOWED_CALLS.put("dev.ductor.console.ConsoleRoutes#index -> ClassLoader.getResourceAsStream",
                "reads META-INF/resources/console/index.html, a static resource Quarkus itself includes in a native image"
                        + " (every file under META-INF/resources is served, so it is registered as a native resource)");
        ALLOWED_CALLS.put("dev.ductor.workflow.SampleWorkflows#read -> ClassLoader.getResourceAsStream",
                "the sample workflows samples/*.json, which application.properties adds to the image with"
                        + " quarkus.native.resources.includes (checked by classPathResourcesReadAtRunTimeAreIncludedInTheImage)");
    }

    private static void declare(String site, String why, Class<?>... types) {
        DECLARED.put(site, new NativeImageScanner.Declaration(List.of(types), why));
    }

    // ---- the real code -------------------------------------------------------------------------------------------

    @Test
    void mainCodeIsReadyForANativeImage() {
        NativeImageScanner scanner = new NativeImageScanner(getClass().getClassLoader(), registered(), DECLARED, ALLOWED_CALLS,
                FORWARDERS);
        for (Path file : mainClassFiles()) {
            scanner.add(read(file));
        }
        List<NativeImageScanner.Finding> findings = scanner.scan();
        System.out.println("[native image] scanned " + scanner.classCount() + " classes, " + scanner.sinkCalls
                + " values handed to Jackson; registered " + registered() + "; payload types per call:\n  "
                + scanner.payloads.entrySet().stream().filter(e -> e.getKey().contains(" -> "))
                .map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining("\n  ")));
        // The scan must have understood the real code, or a broken analysis would pass everything.
        assertTrue(scanner.classCount() > 100, "scanned only " + scanner.classCount() + " classes");
        assertEquals(Set.of(EventReceipt.Outcome.class.getName()),
                scanner.payloads.get("dev.ductor.aggregate.rule.EventIngestion#read -> ObjectMapper.readValue"),
                "the scanner did not see EventIngestion read the stored outcome back: " + scanner.payloads.keySet());
        assertTrue(scanner.payloads.getOrDefault("dev.ductor.api.PoolResource#put -> PoolService.put#6", Set.of())
                        .contains(JsonNode.class.getName()),
                "the scanner did not follow the request body into PoolService.put: " + scanner.payloads.keySet());
        assertTrue(scanner.payloads.values().stream().anyMatch(types -> types.contains("dev.ductor.api.Problem")),
                "the scanner did not see any Problem answered as a Response entity: " + scanner.payloads);
        assertTrue(findings.isEmpty(), findings.size() + " native-image problem(s):\n  "
                + findings.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
        Set<String> staleDeclarations = new TreeSet<>(DECLARED.keySet());
        staleDeclarations.removeAll(scanner.usedDeclarations);
        assertTrue(staleDeclarations.isEmpty(), "declarations that match nothing any more (remove them): " + staleDeclarations);
        Set<String> staleAllowances = new TreeSet<>(ALLOWED_CALLS.keySet());
        staleAllowances.removeAll(scanner.usedAllowances);
        assertTrue(staleAllowances.isEmpty(), "allowed calls that no longer happen (remove them): " + staleAllowances);
    }

    /**
     * Every registration is needed: a class reaches Jackson, or a library instantiates it reflectively (SmallRye
     * Fault Tolerance's {@code @CustomBackoff} and {@code @Fallback} classes). A stale entry hides nothing but misleads.
     */
    @Test
    void everyRegistrationIsNeededAndEveryReflectivelyCreatedStrategyIsRegistered() throws ClassNotFoundException {
        List<String> registrations = registrations();
        assertTrue(registrations.size() > 10, "hardly anything is registered for reflection: " + registrations);
        assertEquals(registrations.size(), Set.copyOf(registrations).size(), "a class is registered twice: " + registrations);
        Set<String> strategies = new TreeSet<>();
        for (String name : mainClassNames()) {
            for (var method : Class.forName(name, false, getClass().getClassLoader()).getDeclaredMethods()) {
                CustomBackoff backoff = method.getAnnotation(CustomBackoff.class);
                if (backoff != null) {
                    strategies.add(backoff.value().getName());
                }
                Fallback fallback = method.getAnnotation(Fallback.class);
                if (fallback != null && fallback.value() != Fallback.DEFAULT.class) {
                    strategies.add(fallback.value().getName());
                }
            }
        }
        Set<String> registered = registered();
        assertTrue(registered.containsAll(strategies), "instantiated reflectively but not registered: " + strategies);

        NativeImageScanner scanner = new NativeImageScanner(getClass().getClassLoader(), registered, DECLARED, ALLOWED_CALLS,
                FORWARDERS);
        mainClassFiles().forEach(file -> scanner.add(read(file)));
        scanner.scan();
        Set<String> unneeded = new TreeSet<>(registered);
        unneeded.removeAll(scanner.reached);
        unneeded.removeAll(strategies);
        assertTrue(unneeded.isEmpty(), "registered, but nothing hands them to Jackson or creates them reflectively: " + unneeded);
    }

    /** Resources read from the class path at run time must be in the image (quarkus.native.resources.includes). */
    @Test
    void classPathResourcesReadAtRunTimeAreIncludedInTheImage() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("src/main/resources/application.properties"))) {
            properties.load(in);
        }
        String includes = properties.getProperty("quarkus.native.resources.includes", "");
        List<String> globs = Arrays.stream(includes.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        for (String resource : List.of("samples/chain3.json", "samples/fanout.json", "samples/order.json", "samples/flaky.json")) {
            assertTrue(Files.isRegularFile(Path.of("src/main/resources").resolve(resource)), resource + " is gone: update this test");
            assertTrue(globs.stream().anyMatch(glob -> java.nio.file.FileSystems.getDefault().getPathMatcher("glob:" + glob)
                    .matches(Path.of(resource))), resource + " is read by SampleWorkflows but not in quarkus.native.resources.includes=" + includes);
        }
    }

    // ---- the scanner checks itself -------------------------------------------------------------------------------

    /** Known mistakes, compiled with this test and scanned as bytecode. Never called. */
    @SuppressWarnings("unused")
    static final class Mistakes {

        record Unregistered(String name) {
        }

        record RegisteredHolder(List<Unregistered> items) {
        }

        interface Loader {
            Class<?> load(String name) throws Exception;
        }

        String writesAnUnregisteredRecord(JsonCodec json) {
            return json.write(new Unregistered("x"));
        }

        Object readsAnUnregisteredRecord(ObjectMapper mapper, String text) throws IOException {
            return mapper.readValue(text, Unregistered.class);
        }

        Object readsThroughATypeReference(ObjectMapper mapper, String text) throws IOException {
            return mapper.readValue(text, new TypeReference<List<Unregistered>>() {
            });
        }

        Response answersAnUnregisteredEntity() {
            Unregistered entity = new Unregistered("x");
            return Response.ok(entity).build();
        }

        Response answersAMapHoldingOne() {
            return Response.status(200).entity(Map.of("x", new Unregistered("y"))).build();
        }

        Response answersARegisteredRecordHoldingAnUnregisteredOne() {
            return Response.accepted(new RegisteredHolder(List.of())).build();
        }

        Response answersSomethingUntyped(Object anything) {
            return Response.ok(anything).build();
        }

        Class<?> loadsAClassByName() throws ClassNotFoundException {
            return Class.forName("dev.ductor.Nothing");
        }

        Loader loadsByMethodReference() {
            return Class::forName;
        }

        Object makesAProxy() {
            return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Runnable.class}, (p, m, a) -> null);
        }

        InputStream readsAClassPathResource() {
            return getClass().getResourceAsStream("/nothing.json");
        }

        Object loadsServices() {
            return ServiceLoader.load(Runnable.class);
        }
    }

    /** An error carrying an unregistered payload in its problem document. */
    static final class ErrorWithAPayload extends DuctorException {

        ErrorWithAPayload() {
            super("x");
        }

        @Override
        public int status() {
            return 409;
        }

        @Override
        public String type() {
            return "x";
        }

        @Override
        public String title() {
            return "X";
        }

        @Override
        public Map<String, Object> extensions() {
            return Map.of("current", new Mistakes.Unregistered("x"));
        }
    }

    static final class ReadsTheClockAtClassInit {
        static final long STARTED = System.currentTimeMillis();
    }

    static final class StartsAThreadAtClassInit {
        static final Thread WORKER = start();

        private static Thread start() {
            Thread thread = new Thread(() -> { });
            thread.start();
            return thread;
        }
    }

    /** What must pass: trees, registered records, strings, a known TypeReference, null. Never called. */
    @SuppressWarnings("unused")
    static final class Allowed {

        record Registered(String name, JsonNode payload) {
        }

        private static final TypeReference<Map<String, JsonNode>> TREES = new TypeReference<>() {
        };

        static final List<String> NAMES = List.of("a", "b");

        String writesATree(JsonCodec json, JsonNode tree) {
            return json.write(tree);
        }

        String writesARegisteredRecord(JsonCodec json) {
            return json.write(new Registered("x", null));
        }

        String writesNull(JsonCodec json) {
            return json.write(null);
        }

        Object readsARegisteredRecord(ObjectMapper mapper, String text) throws IOException {
            return mapper.readValue(text, Registered.class);
        }

        Map<String, JsonNode> convertsToTrees(ObjectMapper mapper, JsonNode tree) {
            return mapper.convertValue(tree, TREES);
        }

        Response answersStrings(String id) {
            return Response.accepted(Map.of("runId", id, "status", "CANCELLING")).build();
        }

        Response answersARegisteredRecord(Registered registered) {
            Response.ResponseBuilder builder = registered == null ? Response.noContent() : Response.ok();
            return builder.entity(registered).build();
        }
    }

    @Test
    void theScannerFindsKnownMistakes() {
        NativeImageScanner scanner = snippetScanner(Map.of());
        for (Class<?> snippet : List.of(Mistakes.class, ErrorWithAPayload.class, ReadsTheClockAtClassInit.class,
                StartsAThreadAtClassInit.class)) {
            scanner.add(bytecode(snippet));
        }
        List<NativeImageScanner.Finding> found = scanner.scan();
        String mistakes = Mistakes.class.getName();
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put(mistakes + "#writesAnUnregisteredRecord -> JsonCodec.write", "unregistered");
        expected.put(mistakes + "#readsAnUnregisteredRecord -> ObjectMapper.readValue", "unregistered");
        expected.put(mistakes + "#readsThroughATypeReference -> ObjectMapper.readValue", "unregistered");
        expected.put(mistakes + "#answersAnUnregisteredEntity -> Response.ok", "unregistered");
        expected.put(mistakes + "#answersAMapHoldingOne -> ResponseBuilder.entity", "unregistered");
        expected.put(mistakes + "$RegisteredHolder#items", "unregistered");
        expected.put(mistakes + "#answersSomethingUntyped -> Response.ok", "opaque");
        expected.put(mistakes + "#loadsAClassByName -> Class.forName", "forbidden-call");
        expected.put(mistakes + "#loadsByMethodReference -> Class.forName", "forbidden-call");
        expected.put(mistakes + "#makesAProxy -> Proxy.newProxyInstance", "forbidden-call");
        expected.put(mistakes + "#readsAClassPathResource -> Class.getResourceAsStream", "forbidden-call");
        expected.put(mistakes + "#loadsServices -> ServiceLoader.load", "forbidden-call");
        expected.put(ErrorWithAPayload.class.getName() + "#extensions -> return", "unregistered");
        expected.put(ReadsTheClockAtClassInit.class.getName() + "#<clinit>", "static-init");
        expected.put(StartsAThreadAtClassInit.class.getName() + "#<clinit>", "static-init");
        List<String> missed = new ArrayList<>();
        expected.forEach((where, rule) -> {
            if (found.stream().noneMatch(f -> f.where().equals(where) && f.rule().equals(rule))) {
                missed.add(where + " [" + rule + "]");
            }
        });
        assertTrue(missed.isEmpty(), "the scanner missed known mistakes:\n  " + String.join("\n  ", missed)
                + "\nit found:\n  " + found.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
        List<NativeImageScanner.Finding> unexpected = found.stream()
                .filter(f -> !expected.containsKey(f.where()) || !expected.get(f.where()).equals(f.rule())).toList();
        assertTrue(unexpected.isEmpty(), "findings no snippet asked for: " + unexpected);
    }

    /** A declaration or an allowance answers the finding it names, and nothing else. */
    @Test
    void declarationsAndAllowancesAnswerExactlyTheirSite() {
        String mistakes = Mistakes.class.getName();
        String untyped = mistakes + "#answersSomethingUntyped -> Response.ok";
        String forName = mistakes + "#loadsAClassByName -> Class.forName";
        NativeImageScanner scanner = new NativeImageScanner(getClass().getClassLoader(),
                Set.of(Mistakes.RegisteredHolder.class.getName()),
                Map.of(untyped, new NativeImageScanner.Declaration(List.of(Mistakes.Unregistered.class), "test")),
                Map.of(forName, "test"), List.of());
        scanner.add(bytecode(Mistakes.class));
        List<NativeImageScanner.Finding> found = scanner.scan();
        assertTrue(scanner.usedDeclarations.contains(untyped) && scanner.usedAllowances.contains(forName));
        assertFalse(found.stream().anyMatch(f -> f.where().equals(forName)), found.toString());
        // The declaration removes the opaque finding, but what it declares is still checked: Unregistered is not.
        assertTrue(found.stream().anyMatch(f -> f.where().equals(untyped) && f.rule().equals("unregistered")), found.toString());
        assertTrue(found.stream().anyMatch(f -> f.where().equals(mistakes + "#loadsByMethodReference -> Class.forName")),
                "an allowance for one method must not cover another: " + found);
    }

    @Test
    void theScannerLetsTheAllowedShapesThrough() {
        NativeImageScanner scanner = snippetScanner(Map.of());
        scanner.add(bytecode(Allowed.class));
        List<NativeImageScanner.Finding> found = scanner.scan();
        assertTrue(found.isEmpty(), "allowed shapes flagged:\n  " + found.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
        // Seven calls; convertValue counts twice (the value it converts and the type it converts to).
        assertEquals(8, scanner.sinkCalls, "the scanner did not see every Jackson call of Allowed: " + scanner.payloads);
    }

    private NativeImageScanner snippetScanner(Map<String, NativeImageScanner.Declaration> declared) {
        return new NativeImageScanner(getClass().getClassLoader(),
                Set.of(Mistakes.RegisteredHolder.class.getName(), Allowed.Registered.class.getName()), declared, Map.of(), List.of());
    }

    // ---- files ---------------------------------------------------------------------------------------------------

    /** Binary names registered for reflection: classes annotated themselves, and the targets of holders (beside them). */
    private static Set<String> registered() {
        return new TreeSet<>(registrations());
    }

    /**
     * Every registration, once per annotation that names it: a type of a pure package (workflow.model,
     * aggregate.core) is registered by a holder in the package above it, every other type by its own annotation.
     */
    private static List<String> registrations() {
        List<String> names = new ArrayList<>();
        for (String name : mainClassNames()) {
            try {
                Class<?> type = Class.forName(name, false, NativeImageReadinessTest.class.getClassLoader());
                RegisterForReflection own = type.getAnnotation(RegisterForReflection.class);
                if (own == null) {
                    continue;
                }
                if (own.targets().length == 0 && own.classNames().length == 0) {
                    names.add(name);
                } else {
                    Stream.of(own.targets()).map(Class::getName).forEach(names::add);
                    names.addAll(List.of(own.classNames()));
                }
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
        }
        return names;
    }

    private static Path mainClasses() {
        try {
            return Path.of(JsonCodec.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private static List<Path> mainClassFiles() {
        Path root = mainClasses();
        assertTrue(Files.isDirectory(root.resolve("dev/ductor")), root + " holds no compiled main classes");
        try (Stream<Path> walk = Files.walk(root.resolve("dev/ductor"))) {
            return walk.filter(p -> p.toString().endsWith(".class")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> mainClassNames() {
        return mainClassFiles().stream()
                .map(file -> mainClasses().relativize(file).toString().replace('/', '.').replaceAll("\\.class$", ""))
                .toList();
    }

    private static byte[] bytecode(Class<?> type) {
        String resource = type.getName().substring(type.getPackageName().length() + 1) + ".class";
        try (InputStream in = type.getResourceAsStream(resource)) {
            if (in == null) {
                throw new AssertionError("no bytecode for " + type);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
