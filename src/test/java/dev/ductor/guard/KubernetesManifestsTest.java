package dev.ductor.guard;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Offline validation of the plain manifests under {@code kubernetes/}: every YAML document is read strictly into
 * the fabric8 model class for its apiVersion/kind, so a misspelt field, a wrong type or an unknown kind fails the
 * build, and a few deployment invariants are asserted. No cluster, no Quarkus.
 */
@Tag("unit")
class KubernetesManifestsTest {

    /** apiVersion/kind -> model class. A kind not listed here fails: add it deliberately. */
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "v1/ConfigMap", ConfigMap.class,
            "v1/Secret", Secret.class,
            "v1/Service", Service.class,
            "apps/v1/Deployment", Deployment.class,
            "autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class,
            "batch/v1/Job", Job.class);

    private static final Path DIR = Path.of("kubernetes");
    private static final Pattern SECRETISH = Pattern.compile("PASSWORD|SECRET|TOKEN|PRIVATE|CREDENTIAL");

    private static ObjectMapper strict;
    private static List<Doc> docs;

    record Doc(Path file, int index, HasMetadata object) {
        boolean example() {
            return file.getFileName().toString().endsWith(".example.yaml");
        }

        @Override
        public String toString() {
            return file + "#" + index + " " + object.getKind() + "/" + object.getMetadata().getName();
        }
    }

    @BeforeAll
    static void load() throws IOException {
        strict = strictMapper();
        docs = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(DIR)) {
            files = s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no manifests under " + DIR.toAbsolutePath());
        for (Path file : files) {
            int i = 0;
            for (HasMetadata o : parse(Files.readString(file), file.toString())) {
                docs.add(new Doc(file, i++, o));
            }
        }
    }

    /**
     * Jackson over YAML that fails on any field the model does not declare. fabric8 model classes collect unknown
     * fields in an {@code additionalProperties} any-setter, which would make FAIL_ON_UNKNOWN_PROPERTIES a no-op;
     * the modifier removes that any-setter. Scalars are not coerced either ("3" is not an integer, 8080 is not a
     * string: Kubernetes rejects both, e.g. an unquoted annotation value).
     */
    static ObjectMapper strictMapper() {
        SimpleModule noAnySetter = new SimpleModule("strict-kubernetes");
        noAnySetter.setDeserializerModifier(new BeanDeserializerModifier() {
            @Override
            public BeanDeserializerBuilder updateBuilder(DeserializationConfig config, BeanDescription bean,
                                                         BeanDeserializerBuilder builder) {
                if (bean.getBeanClass().getName().startsWith("io.fabric8.")) {
                    builder.setAnySetter(null);
                }
                return builder;
            }
        });
        YAMLMapper mapper = YAMLMapper.builder(new YAMLFactory())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .addModule(noAnySetter)
                .build();
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        for (LogicalType t : List.of(LogicalType.Integer, LogicalType.Float, LogicalType.Boolean)) {
            mapper.coercionConfigFor(t).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        }
        return mapper;
    }

    /** Every document of one YAML stream, each read strictly into its model class. */
    static List<HasMetadata> parse(String yaml, String source) throws IOException {
        List<HasMetadata> out = new ArrayList<>();
        ObjectMapper mapper = strict != null ? strict : strictMapper();
        int i = 0;
        try (var it = mapper.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
            while (it.hasNext()) {
                JsonNode node = it.next();
                String where = source + "#" + i++;
                if (node == null || node.isNull() || node.isMissingNode()) {
                    continue; // an empty document (a trailing ---)
                }
                String key = node.path("apiVersion").asText() + "/" + node.path("kind").asText();
                Class<? extends HasMetadata> type = KINDS.get(key);
                if (type == null) {
                    throw new IllegalArgumentException(where + ": unknown apiVersion/kind " + key);
                }
                HasMetadata o;
                try {
                    o = mapper.treeToValue(node, type);
                } catch (IOException e) {
                    throw new IllegalArgumentException(where + " (" + key + "): " + e.getMessage(), e);
                }
                assertNotNull(o.getMetadata(), where + ": metadata");
                assertNotNull(o.getMetadata().getName(), where + ": metadata.name");
                out.add(o);
            }
        }
        return out;
    }

    private static <T> List<T> all(Class<T> type, boolean includeExamples) {
        return docs.stream().filter(d -> includeExamples || !d.example())
                .map(Doc::object).filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T one(Class<T> type, String name) {
        List<T> found = all(type, false).stream().filter(o -> name.equals(o.getMetadata().getName())).toList();
        assertEquals(1, found.size(), type.getSimpleName() + " " + name + " in " + DIR);
        return found.get(0);
    }

    private static Map<String, EnvVar> env(Container c) {
        return c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
    }

    @Test
    void everyDocumentIsAKnownKindAndParsesStrictly() {
        // load() already parsed everything strictly; make sure the expected objects are all there.
        assertTrue(docs.size() >= 9, "documents: " + docs);
        one(Deployment.class, "ductor");
        one(Service.class, "ductor");
        one(HorizontalPodAutoscaler.class, "ductor");
        one(PodDisruptionBudget.class, "ductor");
        one(NetworkPolicy.class, "ductor");
        one(ConfigMap.class, "ductor-config");
        assertEquals(1, all(Job.class, false).size());
        assertTrue(all(Job.class, false).get(0).getMetadata().getName().startsWith("ductor-migrate-"));
    }

    @Test
    void deploymentInvariants() {
        Deployment d = one(Deployment.class, "ductor");
        assertEquals(3, d.getSpec().getReplicas());
        PodSpec pod = d.getSpec().getTemplate().getSpec();
        assertEquals(45L, pod.getTerminationGracePeriodSeconds());
        assertEquals(Boolean.TRUE, pod.getSecurityContext().getRunAsNonRoot());
        assertEquals(1, pod.getContainers().size());
        Container c = pod.getContainers().get(0);
        assertEquals(8080, c.getPorts().get(0).getContainerPort());
        assertProbe(c.getLivenessProbe(), "/q/health/live");
        assertProbe(c.getReadinessProbe(), "/q/health/ready");
        assertProbe(c.getStartupProbe(), "/q/health/");
        assertTrue(c.getLifecycle() == null || c.getLifecycle().getPreStop() == null,
                "no preStop: the app's own pre-shutdown delay keeps serving while readiness is DOWN");
        assertEquals(Boolean.TRUE, c.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(Boolean.TRUE, c.getSecurityContext().getRunAsNonRoot());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        assertTrue(c.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/tmp")), "/tmp mount");
        assertNotNull(c.getResources().getRequests().get("memory"));
        assertNotNull(c.getResources().getLimits().get("memory"));

        Map<String, EnvVar> env = env(c);
        assertEquals("false", env.get("DUCTOR_EMBEDDED_ENABLED").getValue());
        assertEquals("false", env.get("QUARKUS_FLYWAY_MIGRATE_AT_START").getValue());
        for (String name : List.of("QUARKUS_DATASOURCE_JDBC_URL", "QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD")) {
            assertEquals("ductor-db", env.get(name).getValueFrom().getSecretKeyRef().getName(), name);
        }
        String keyFile = env.get("MP_JWT_VERIFY_PUBLICKEY_LOCATION").getValue();
        assertTrue(c.getVolumeMounts().stream().anyMatch(m -> keyFile.startsWith(m.getMountPath() + "/")
                && pod.getVolumes().stream().anyMatch(v -> v.getName().equals(m.getName()) && v.getSecret() != null
                        && "ductor-jwt".equals(v.getSecret().getSecretName()))), "JWT key file from Secret ductor-jwt");
        assertTrue(c.getEnvFrom().stream().anyMatch(e -> e.getConfigMapRef() != null
                && "ductor-config".equals(e.getConfigMapRef().getName())), "envFrom ductor-config");
        assertTrue(one(ConfigMap.class, "ductor-config").getData().containsKey("MP_JWT_VERIFY_ISSUER"));
        assertEquals("true", d.getSpec().getTemplate().getMetadata().getAnnotations().get("prometheus.io/scrape"));
    }

    private static void assertProbe(Probe p, String pathPrefix) {
        assertNotNull(p, "probe " + pathPrefix);
        assertTrue(p.getHttpGet().getPath().startsWith(pathPrefix), p.getHttpGet().getPath());
    }

    @Test
    void migrationJobMigratesAndExits() {
        Job job = all(Job.class, false).get(0);
        Map<String, EnvVar> env = env(job.getSpec().getTemplate().getSpec().getContainers().get(0));
        assertEquals("true", env.get("QUARKUS_FLYWAY_MIGRATE_AT_START").getValue());
        assertEquals("true", env.get("QUARKUS_INIT_AND_EXIT").getValue());
        assertEquals("false", env.get("DUCTOR_EMBEDDED_ENABLED").getValue());
        assertEquals(one(Deployment.class, "ductor").getSpec().getTemplate().getSpec().getContainers().get(0).getImage(),
                job.getSpec().getTemplate().getSpec().getContainers().get(0).getImage(), "same image as the server");
        assertNotNull(job.getSpec().getActiveDeadlineSeconds());
    }

    /** Only the migration Job may change the schema: it alone has the owner's login; the pods have a DML-only one. */
    @Test
    void onlyTheMigrationJobLogsInAsTheSchemaOwner() {
        Container server = one(Deployment.class, "ductor").getSpec().getTemplate().getSpec().getContainers().get(0);
        Container migrate = all(Job.class, false).get(0).getSpec().getTemplate().getSpec().getContainers().get(0);
        for (String name : List.of("QUARKUS_DATASOURCE_JDBC_URL", "QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD")) {
            assertEquals("ductor-db", env(server).get(name).getValueFrom().getSecretKeyRef().getName(), "server " + name);
            assertEquals("ductor-db-owner", env(migrate).get(name).getValueFrom().getSecretKeyRef().getName(), "Job " + name);
        }
        Map<String, String> users = all(Secret.class, true).stream().filter(s -> s.getStringData().containsKey("username"))
                .collect(Collectors.toMap(s -> s.getMetadata().getName(), s -> s.getStringData().get("username")));
        assertEquals(2, users.size(), users.toString());
        assertFalse(users.get("ductor-db").equals(users.get("ductor-db-owner")), "two logins: " + users);
    }

    /** Every emptyDir is bounded: a runaway writer is evicted instead of filling the node's disk. */
    @Test
    void everyEmptyDirHasASizeLimit() {
        List<PodSpec> pods = List.of(one(Deployment.class, "ductor").getSpec().getTemplate().getSpec(),
                all(Job.class, false).get(0).getSpec().getTemplate().getSpec());
        for (PodSpec pod : pods) {
            pod.getVolumes().stream().filter(v -> v.getEmptyDir() != null).forEach(v ->
                    assertNotNull(v.getEmptyDir().getSizeLimit(), "emptyDir " + v.getName() + " has no sizeLimit"));
        }
        assertTrue(all(Job.class, false).get(0).getSpec().getTemplate().getSpec().getVolumes().stream()
                .anyMatch(v -> v.getName().equals("tmp") && v.getEmptyDir() != null), "the Job's /tmp is an emptyDir");
    }

    /** Egress to PostgreSQL's port names where the database is; never "any address". */
    @Test
    void databaseEgressNamesItsTarget() {
        List<NetworkPolicyEgressRule> database = one(NetworkPolicy.class, "ductor").getSpec().getEgress().stream()
                .filter(rule -> rule.getPorts().stream().anyMatch(p -> p.getPort() != null && p.getPort().getIntVal() != null
                        && p.getPort().getIntVal() == 5432))
                .toList();
        assertEquals(1, database.size(), "one egress rule for PostgreSQL");
        List<NetworkPolicyPeer> to = database.get(0).getTo();
        assertFalse(to == null || to.isEmpty(), "the PostgreSQL egress rule has no 'to': it allows every address");
        for (NetworkPolicyPeer peer : to) {
            assertTrue(peer.getIpBlock() == null || !peer.getIpBlock().getCidr().endsWith("/0"), "an ipBlock of every address: " + peer);
            assertTrue(peer.getIpBlock() != null || (peer.getPodSelector() != null
                    && !peer.getPodSelector().getMatchLabels().isEmpty()), "a peer that selects nothing in particular: " + peer);
        }
    }

    /** Tokens the identity provider issued to other applications are refused (docs/operations.md, "Security"). */
    @Test
    void tokensAreCheckedForTheirAudience() {
        String audiences = one(ConfigMap.class, "ductor-config").getData().get("MP_JWT_VERIFY_AUDIENCES");
        assertTrue(audiences != null && !audiences.isBlank(), "MP_JWT_VERIFY_AUDIENCES in the ConfigMap");
    }

    @Test
    void scalingAndDisruption() {
        HorizontalPodAutoscaler hpa = one(HorizontalPodAutoscaler.class, "ductor");
        assertEquals(3, hpa.getSpec().getMinReplicas());
        assertEquals(10, hpa.getSpec().getMaxReplicas());
        assertEquals("ductor", hpa.getSpec().getScaleTargetRef().getName());
        assertEquals(2, one(PodDisruptionBudget.class, "ductor").getSpec().getMinAvailable().getIntVal());
        Service svc = one(Service.class, "ductor");
        assertEquals(80, svc.getSpec().getPorts().get(0).getPort());
        assertEquals(one(Deployment.class, "ductor").getSpec().getSelector().getMatchLabels(), svc.getSpec().getSelector());
    }

    @Test
    void noSecretValuesOutsideExamples() {
        for (Doc d : docs) {
            if (d.example()) {
                continue;
            }
            assertFalse(d.object() instanceof Secret, d + ": Secrets live only in *.example.yaml");
            PodSpec pod = d.object() instanceof Deployment dep ? dep.getSpec().getTemplate().getSpec()
                    : d.object() instanceof Job job ? job.getSpec().getTemplate().getSpec() : null;
            if (pod == null) {
                continue;
            }
            for (Container c : pod.getContainers()) {
                for (EnvVar e : c.getEnv()) {
                    if (SECRETISH.matcher(e.getName()).find()) {
                        assertTrue(e.getValue() == null && e.getValueFrom() != null
                                && e.getValueFrom().getSecretKeyRef() != null, d + ": " + e.getName() + " must come from a Secret");
                    }
                }
            }
        }
        for (ConfigMap cm : all(ConfigMap.class, false)) {
            cm.getData().keySet().forEach(k -> assertFalse(SECRETISH.matcher(k).find(), "ConfigMap key " + k));
        }
        // The examples must name the Secrets the workloads reference, with placeholder values only.
        List<Secret> examples = all(Secret.class, true);
        assertEquals(List.of("ductor-db", "ductor-db-owner", "ductor-jwt"), examples.stream().map(s -> s.getMetadata().getName()).sorted().toList());
        examples.forEach(s -> assertTrue(s.getStringData().values().stream().anyMatch(v -> v.contains("CHANGE-ME")), s.getMetadata().getName()));
    }

    // --- the validator itself rejects what kubectl would -----------------------------------------------------

    private static final String GOOD = """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: x}
            spec:
              selector: {matchLabels: {app: x}}
              template:
                metadata: {labels: {app: x}}
                spec:
                  containers:
                    - name: x
                      image: x:1
            """;

    @Test
    void acceptsAMinimalDeployment() throws IOException {
        assertEquals(1, parse(GOOD, "good").size());
    }

    @Test
    void rejectsAMisspeltField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse(GOOD.replace("containers:", "contianers:"), "typo"));
        assertTrue(e.getMessage().contains("contianers"), e.getMessage());
    }

    @Test
    void rejectsAMisspeltNestedField() {
        assertThrows(IllegalArgumentException.class, () -> parse(GOOD.replace("image: x:1", "image: x:1\n          imagePullPolcy: Always"), "nested"));
    }

    @Test
    void rejectsWrongScalarTypes() {
        IllegalArgumentException quotedInt = assertThrows(IllegalArgumentException.class,
                () -> parse(GOOD.replace("spec:\n  selector", "spec:\n  replicas: \"3\"\n  selector"), "string-int"));
        assertTrue(quotedInt.getMessage().contains("replicas"), quotedInt.getMessage());
        IllegalArgumentException unquoted = assertThrows(IllegalArgumentException.class,
                () -> parse(GOOD.replace("metadata: {name: x}", "metadata: {name: x, annotations: {prometheus.io/port: 8080}}"), "int-string"));
        assertTrue(unquoted.getMessage().contains("annotations"), unquoted.getMessage());
    }

    @Test
    void rejectsAnUnknownKind() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse(GOOD.replace("kind: Deployment", "kind: Deploymnet"), "kind"));
        assertTrue(e.getMessage().contains("Deploymnet"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse(GOOD.replace("apps/v1", "apps/v1beta1"), "version"));
    }

    @Test
    void fileListIsWhatTheReadmeDescribes() throws IOException {
        String readme = Files.readString(DIR.resolve("README.md"));
        Optional<Path> undocumented = docs.stream().map(Doc::file).distinct()
                .filter(f -> !readme.contains(f.getFileName().toString())).findFirst();
        undocumented.ifPresent(f -> fail(f + " is not described in kubernetes/README.md"));
    }
}
