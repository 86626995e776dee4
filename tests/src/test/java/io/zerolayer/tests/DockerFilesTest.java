package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.jobs.BillingOptions;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.HardwareOptions;
import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.tests.testutils.BuiltArtifacts;
import java.lang.reflect.Modifier;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * docker/ has no Docker engine to run on here, so its files are parsed and checked against the
 * code: image versions against the POM, topics against the job's, settings against its options,
 * paths against the tree, and the lib/ layout against what {@code zerolayer cluster up} runs.
 */
class DockerFilesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static Map<String, Object> compose;
    private static String dockerfile;
    private static String pom;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void read() throws Exception {
        compose =
                new Yaml(new SafeConstructor(new LoaderOptions()))
                        .load(Files.readString(ROOT.resolve("docker/compose.yaml")));
        dockerfile = Files.readString(ROOT.resolve("docker/Dockerfile"));
        pom = Files.readString(ROOT.resolve("pom.xml"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(String name) {
        return (Map<String, Object>) ((Map<String, Object>) compose.get("services")).get(name);
    }

    private static String pomProperty(String name) {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)<").matcher(pom);
        assertThat(m.find()).as(name + " in pom.xml").isTrue();
        return m.group(1);
    }

    /** The Flink settings every Flink container gets, as key → value. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> flinkProperties() {
        Map<String, Object> env = (Map<String, Object>) service("jobmanager").get("environment");
        Map<String, String> props = new LinkedHashMap<>();
        for (String line : ((String) env.get("FLINK_PROPERTIES")).split("\n")) {
            if (!line.isBlank()) {
                int colon = line.indexOf(':');
                props.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
            }
        }
        return props;
    }

    @Test
    void imagesAreTheVersionsTheProjectBuildsAgainst() {
        String flink = pomProperty("flink.version");
        String minor = flink.substring(0, flink.lastIndexOf('.'));
        assertThat(dockerfile).contains("ARG FLINK_IMAGE=flink:" + minor + "-java17");
        String kafka = "apache/kafka:" + pomProperty("kafka.version");
        assertThat(service("kafka").get("image")).isEqualTo(kafka);
        assertThat(service("topic-init").get("image")).isEqualTo(kafka);
    }

    @Test
    @SuppressWarnings("unchecked")
    void topicInitCreatesEveryTopicTheJobNeedsWithItsShape() {
        String script = String.join("\n", (List<String>) service("topic-init").get("command"));
        Set<String> created = new HashSet<>();
        Matcher m = Pattern.compile("create (\\S+) --partitions (\\d+)(.*)").matcher(script);
        Map<String, String> lines = new LinkedHashMap<>();
        while (m.find()) {
            created.add(m.group(1));
            lines.put(m.group(1), m.group(2) + m.group(3));
        }
        Configuration conf = new Configuration();
        List<JobTopic> topics = JobTopic.of(conf, 4);
        assertThat(created)
                .containsExactlyInAnyOrderElementsOf(topics.stream().map(JobTopic::name).toList());
        for (JobTopic t : topics) {
            assertThat(lines.get(t.name())).startsWith(Integer.toString(t.partitions()));
            assertThat(lines.get(t.name()).strip())
                    .as(t.name())
                    .isEqualTo((t.partitions() + t.configArguments()).strip());
        }
        assertThat(flinkProperties().get("zerolayer.kafka.bootstrap-servers"))
                .isEqualTo("kafka:9092");
    }

    @Test
    void everyZerolayerSettingIsOneTheJobKnowsAndEveryFileItNamesIsInTheImage() throws Exception {
        Set<String> known = new HashSet<>();
        PipelineOptions.all().forEach(o -> known.add(o.key()));
        Map<String, String> props = flinkProperties();
        props.keySet().stream()
                .filter(k -> k.startsWith("zerolayer."))
                .forEach(k -> assertThat(known).as("setting %s", k).contains(k));
        for (String key :
                List.of(
                        ExecutorOptions.PRECOMPILE_FILE.key(),
                        BillingOptions.PRICES_FILE.key(),
                        TenancyOptions.CONTRACTS_FILE.key(),
                        HardwareOptions.HARDWARE_PROFILES_FILE.key())) {
            String inImage = props.get(key);
            assertThat(inImage).as(key).startsWith("/opt/flink/conf/");
            String file = inImage.substring("/opt/flink/conf/".length());
            assertThat(ROOT.resolve("flink-conf").resolve(file)).exists();
            assertThat(dockerfile).contains("flink-conf/" + file);
        }
        assertThat(props.get("classloader.parent-first-patterns.additional"))
                .isEqualTo(LocalCluster.PARENT_FIRST_PATTERNS);
    }

    @Test
    void theImageCopiesFilesTheBuildMakesAndTheJobIsSubmittedFromWhereItLands() throws Exception {
        List<String> sources = new ArrayList<>();
        Matcher copy = Pattern.compile("(?m)^COPY ((?:.|\\\\\\n)+?) (/\\S+)$").matcher(dockerfile);
        while (copy.find()) {
            for (String s : copy.group(1).replace("\\\n", " ").trim().split("\\s+")) {
                sources.add(s);
            }
        }
        assertThat(sources).isNotEmpty();
        BuiltArtifacts.jobJar();
        BuiltArtifacts.flinkLib();
        BuiltArtifacts.flinkLibJar();
        assertThat(sources).contains("flink-lib/target/zerolayer-flink-lib.jar");
        for (String source : sources) {
            var glob = FileSystems.getDefault().getPathMatcher("glob:" + source);
            try (Stream<Path> files = Files.walk(ROOT.resolve(Path.of(source).getParent()), 1)) {
                assertThat(files.map(ROOT::relativize).anyMatch(glob::matches))
                        .as("COPY %s matches a file of the build", source)
                        .isTrue();
            }
        }
        assertThat(dockerfile).contains("/opt/flink/usrlib/zerolayer-flink.jar");
        assertThat((String) service("submit").get("command"))
                .contains("/opt/flink/usrlib/zerolayer-flink.jar run");
    }

    @Test
    @SuppressWarnings("unchecked")
    void prometheusScrapesThePortTheReporterTakesAndGrafanaGetsTheDashboard() throws Exception {
        Map<String, Object> prom =
                new Yaml(new SafeConstructor(new LoaderOptions()))
                        .load(Files.readString(ROOT.resolve("docker/prometheus/prometheus.yml")));
        Map<String, Object> job = ((List<Map<String, Object>>) prom.get("scrape_configs")).get(0);
        Map<String, Object> sd = ((List<Map<String, Object>>) job.get("dns_sd_configs")).get(0);
        assertThat(String.valueOf(sd.get("port")))
                .isEqualTo(flinkProperties().get("metrics.reporter.prom.port"));
        assertThat((List<String>) sd.get("names")).contains("jobmanager", "taskmanager");
        // the alerting rules AlertRulesTest checks are the ones Prometheus loads
        assertThat((List<String>) prom.get("rule_files")).containsExactly("zerolayer-alerts.yml");
        assertThat((List<String>) service("prometheus").get("volumes"))
                .contains(
                        "./prometheus/zerolayer-alerts.yml:/etc/prometheus/zerolayer-alerts.yml:ro");
        for (String volume : (List<String>) service("grafana").get("volumes")) {
            assertThat(ROOT.resolve("docker").resolve(volume.split(":")[0]).normalize()).exists();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void recoveryIsTunedTheSameWayInComposeKubernetesAndFlinkConf() throws Exception {
        Map<String, String> tuned = new LinkedHashMap<>();
        org.apache.flink.configuration.GlobalConfiguration.loadConfiguration(
                        ROOT.resolve("flink-conf").toString())
                .toMap()
                .forEach(
                        (k, v) -> {
                            if (k.startsWith("heartbeat.")
                                    || k.startsWith("restart-strategy.")
                                    || k.startsWith("taskmanager.load-balance.")) {
                                tuned.put(k, v);
                            }
                        });
        assertThat(tuned)
                .containsKeys(
                        "heartbeat.timeout",
                        "restart-strategy.type",
                        "taskmanager.load-balance.mode");
        Map<String, Object> k8sConf = null;
        for (Object d :
                new Yaml(new SafeConstructor(new LoaderOptions()))
                        .loadAll(Files.readString(ROOT.resolve("docker/k8s/zerolayer.yaml")))) {
            Map<String, Object> doc = (Map<String, Object>) d;
            if ("FlinkDeployment".equals(doc.get("kind"))) {
                k8sConf =
                        (Map<String, Object>)
                                ((Map<String, Object>) doc.get("spec")).get("flinkConfiguration");
            }
        }
        assertThat(k8sConf).isNotNull();
        Map<String, String> compose = flinkProperties();
        for (var e : tuned.entrySet()) {
            assertThat(compose.get(e.getKey()))
                    .as("compose %s", e.getKey())
                    .isEqualTo(e.getValue());
            assertThat(String.valueOf(k8sConf.get(e.getKey())))
                    .as("k8s %s", e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theKubernetesDeploymentRunsTheImageTheWayTheComposeFileDoes() throws Exception {
        List<Map<String, Object>> docs = new ArrayList<>();
        new Yaml(new SafeConstructor(new LoaderOptions()))
                .loadAll(Files.readString(ROOT.resolve("docker/k8s/zerolayer.yaml")))
                .forEach(d -> docs.add((Map<String, Object>) d));
        Map<String, Object> deployment =
                docs.stream()
                        .filter(d -> "FlinkDeployment".equals(d.get("kind")))
                        .findFirst()
                        .orElseThrow();
        Map<String, Object> spec = (Map<String, Object>) deployment.get("spec");
        String flink = pomProperty("flink.version");
        assertThat(spec.get("flinkVersion"))
                .isEqualTo("v" + flink.substring(0, flink.lastIndexOf('.')).replace('.', '_'));
        assertThat(spec.get("image")).isEqualTo(service("jobmanager").get("image"));
        Map<String, Object> job = (Map<String, Object>) spec.get("job");
        assertThat(job.get("jarURI")).isEqualTo("local:///opt/flink/usrlib/zerolayer-flink.jar");
        assertThat(Class.forName((String) job.get("entryClass")).getMethod("main", String[].class))
                .as("the entry class's main method")
                .satisfies(main -> assertThat(Modifier.isStatic(main.getModifiers())).isTrue());
        assertThat(job.get("upgradeMode")).isEqualTo("savepoint");

        Map<String, String> conf = new LinkedHashMap<>();
        ((Map<String, Object>) spec.get("flinkConfiguration"))
                .forEach((k, v) -> conf.put(k, String.valueOf(v)));
        assertThat(conf.get("high-availability.type")).isEqualTo("kubernetes");
        assertThat(conf)
                .containsKeys(
                        "high-availability.storageDir",
                        "execution.checkpointing.dir",
                        "execution.checkpointing.savepoint-dir");
        assertThat(conf.get("classloader.parent-first-patterns.additional"))
                .isEqualTo(LocalCluster.PARENT_FIRST_PATTERNS);
        assertThat(conf.get("metrics.reporter.prom.port"))
                .isEqualTo(flinkProperties().get("metrics.reporter.prom.port"));
        Set<String> known = new HashSet<>();
        PipelineOptions.all().forEach(o -> known.add(o.key()));
        conf.keySet().stream()
                .filter(k -> k.startsWith("zerolayer."))
                .forEach(k -> assertThat(known).as("setting %s", k).contains(k));

        // the prices the job reads are the ConfigMap's, which is the project's price sheet
        Map<String, Object> prices =
                docs.stream()
                        .filter(d -> "ConfigMap".equals(d.get("kind")))
                        .findFirst()
                        .orElseThrow();
        assertThat(((Map<String, Object>) prices.get("data")).get("prices.yaml"))
                .isEqualTo(Files.readString(ROOT.resolve("flink-conf/prices.yaml")));
        String mounted = conf.get(BillingOptions.PRICES_FILE.key());
        assertThat(Files.readString(ROOT.resolve("docker/k8s/zerolayer.yaml")))
                .contains("mountPath: " + mounted.substring(0, mounted.lastIndexOf('/')));

        // requests are verified (hmac, the default) against the tenants Secret it mounts
        assertThat(conf).doesNotContainKey(TenancyOptions.AUTH_MODE.key());
        String tenants = conf.get(TenancyOptions.TENANTS_FILE.key());
        assertThat(Files.readString(ROOT.resolve("docker/k8s/zerolayer.yaml")))
                .contains("mountPath: " + tenants.substring(0, tenants.lastIndexOf('/')))
                .contains("secretName: zerolayer-tenants");
    }

    @Test
    @SuppressWarnings("unchecked")
    void composeMountsTheTenantRegistryAsASecretWhereTheJobReadsIt() throws Exception {
        assertThat(flinkProperties()).doesNotContainKey(TenancyOptions.AUTH_MODE.key());
        String file = flinkProperties().get(TenancyOptions.TENANTS_FILE.key());
        assertThat(file).startsWith("/run/secrets/");
        String secret = file.substring("/run/secrets/".length());
        for (String service : List.of("jobmanager", "taskmanager")) {
            assertThat((List<Object>) service(service).get("secrets")).as(service).contains(secret);
        }
        Map<String, Object> compose =
                new Yaml(new SafeConstructor(new LoaderOptions()))
                        .load(Files.readString(ROOT.resolve("docker/compose.yaml")));
        assertThat(((Map<String, Object>) compose.get("secrets"))).containsKey(secret);
        assertThat(dockerfile).as("keys are never baked into the image").doesNotContain("tenants");
    }

    @Test
    @SuppressWarnings("unchecked")
    void kafkaEnforcesTenancyInComposeAndTheJobSignsInWithWhatTenantsSyncWrote() throws Exception {
        Map<String, Object> kafka = (Map<String, Object>) service("kafka").get("environment");
        assertThat(String.valueOf(kafka.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP")))
                .as("no listener without authentication")
                .doesNotContain(":PLAINTEXT");
        assertThat(kafka.get("KAFKA_AUTHORIZER_CLASS_NAME"))
                .isEqualTo("org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        assertThat(String.valueOf(kafka.get("KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND")))
                .isEqualTo("false");
        assertThat(String.valueOf(kafka.get("KAFKA_AUTO_CREATE_TOPICS_ENABLE"))).isEqualTo("false");
        assertThat(String.valueOf(kafka.get("KAFKA_QUOTA_WINDOW_NUM")))
                .as("tenants' quotas judged as the embedded broker judges them")
                .isEqualTo(String.valueOf(io.zerolayer.embedded.EmbeddedKafkaBroker.QUOTA_WINDOWS));

        // tenants sync writes the job's client settings where the job reads them
        String sync = String.join("\n", (List<String>) service("tenants-sync").get("command"));
        assertThat(sync).contains("io.zerolayer.cli.ZeroLayerCli").contains("tenants sync");
        Matcher dir = Pattern.compile("--credentials-dir (\\S+)").matcher(sync);
        assertThat(dir.find()).isTrue();
        String volume =
                ((List<String>) service("tenants-sync").get("volumes"))
                        .stream()
                                .filter(v -> v.endsWith(":" + dir.group(1)))
                                .findFirst()
                                .orElseThrow()
                                .split(":")[0];
        String settings = flinkProperties().get(KafkaOptions.CLIENT_SETTINGS_FILE.key());
        assertThat(settings)
                .endsWith("/" + io.zerolayer.operators.tenants.KafkaTenancy.JOB + ".properties");
        String mountedAt = settings.substring(0, settings.lastIndexOf('/'));
        for (String flink : List.of("jobmanager", "taskmanager", "submit")) {
            assertThat((List<String>) service(flink).get("volumes"))
                    .as(flink)
                    .contains(volume + ":" + mountedAt + ":ro");
        }
        assertThat(((Map<String, Object>) service("submit").get("depends_on")))
                .containsKey("tenants-sync");
        // the picocli command exists as the file calls it
        assertThat(
                        io.zerolayer.cli.ZeroLayerCli.commandLine()
                                .getSubcommands()
                                .get("tenants")
                                .getSubcommands())
                .containsKey("sync");

        // Kubernetes mounts the job's client settings from a Secret where the job reads them
        String k8s = Files.readString(ROOT.resolve("docker/k8s/zerolayer.yaml"));
        assertThat(k8s)
                .contains(
                        KafkaOptions.CLIENT_SETTINGS_FILE.key()
                                + ": "
                                + settings.replace(mountedAt, "/opt/flink/kafka"))
                .contains("mountPath: /opt/flink/kafka")
                .contains("secretName: zerolayer-kafka-job");
    }
}
