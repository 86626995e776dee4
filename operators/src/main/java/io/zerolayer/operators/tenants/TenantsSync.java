package io.zerolayer.operators.tenants;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;

/**
 * Makes a Kafka cluster's principals, ACLs and tenants' reply topics what {@link KafkaTenancy} says
 * for a tenant registry, through the Admin API: a SCRAM-SHA-512 user per principal that has none (a
 * random password, handed back once: Kafka keeps only a salted hash), every ACL missing on the
 * job's topics created, every ACL on them that no principal should hold deleted (a tenant taken out
 * of the registry loses its access and its user), each tenant's reply topic created, and each
 * tenant's broker quotas ({@code producer_byte_rate}, {@code request_percentage}) made the
 * registry's, so the broker throttles a tenant's producers before anything reaches the job. Running
 * it again changes nothing. The admin connection needs Kafka's ALTER and DESCRIBE on the cluster (a
 * super user).
 */
public final class TenantsSync {
    /** SCRAM iterations of the users it creates: Kafka's minimum is 4096. */
    static final int ITERATIONS = 8192;

    private static final long TIMEOUT_SECONDS = 60;

    /**
     * What a sync did.
     *
     * @param changes one line per change, in the order made; empty when nothing had to change
     * @param passwords principal → its new password, for the users created or given a new password
     */
    public record Result(List<String> changes, Map<String, String> passwords) {}

    private final Admin admin;
    private final KafkaTenancy.JobTopics topics;
    private final int replyTopicPartitions;

    /** The job's topics of fixed names, whose ACLs the sync manages. */
    private final Set<String> fixedTopics;

    /**
     * @param replyTopicPartitions partitions of each tenant's reply topic it creates
     */
    public TenantsSync(Admin admin, KafkaTenancy.JobTopics topics, int replyTopicPartitions) {
        this.admin = admin;
        this.topics = topics;
        this.replyTopicPartitions = replyTopicPartitions;
        this.fixedTopics =
                Set.of(
                        topics.requests(),
                        topics.responses(),
                        topics.costs(),
                        topics.costSummary(),
                        topics.graphs(),
                        topics.audit(),
                        topics.deadLetters(),
                        topics.control());
    }

    /**
     * Syncs the cluster with the registry's tenants.
     *
     * @param newPasswords principals to give a new password even though they have one
     * @param dryRun say what would change, change nothing (no password is made)
     */
    public Result sync(TenantRegistry registry, Set<String> newPasswords, boolean dryRun)
            throws ExecutionException, InterruptedException, TimeoutException {
        Set<String> tenants = registry.tenantIds();
        Set<AclBinding> wanted = new LinkedHashSet<>(KafkaTenancy.bindings(tenants, topics));
        Set<String> principals = KafkaTenancy.principals(tenants);
        List<String> changes = new ArrayList<>();
        Map<String, String> passwords = new LinkedHashMap<>();

        // ACLs on the job's resources: those that should not be there go, missing ones come
        Set<AclBinding> ours = new LinkedHashSet<>();
        for (AclBinding b : get(admin.describeAcls(AclBindingFilter.ANY).values())) {
            if (isOurs(b.pattern())) {
                ours.add(b);
            }
        }
        Set<String> formerPrincipals = new LinkedHashSet<>();
        List<AclBinding> stale = new ArrayList<>();
        for (AclBinding b : ours) {
            if (!wanted.contains(b)) {
                stale.add(b);
                String principal = b.entry().principal().substring("User:".length());
                if (!principals.contains(principal)) {
                    formerPrincipals.add(principal);
                }
            }
        }
        List<AclBinding> missing = wanted.stream().filter(b -> !ours.contains(b)).toList();

        // users: one for each principal that has none; none left for a former tenant
        Set<String> users = new LinkedHashSet<>();
        for (UserScramCredentialsDescription d :
                get(admin.describeUserScramCredentials().all()).values()) {
            if (d.credentialInfos().stream()
                    .anyMatch(i -> i.mechanism() == ScramMechanism.SCRAM_SHA_512)) {
                users.add(d.name());
            }
        }
        List<UserScramCredentialAlteration> alterations = new ArrayList<>();
        for (String principal : principals) {
            boolean exists = users.contains(principal);
            if (!exists || newPasswords.contains(principal)) {
                changes.add(
                        (exists ? "new password for SCRAM user " : "created SCRAM user ")
                                + principal);
                if (!dryRun) {
                    String password = password();
                    passwords.put(principal, password);
                    alterations.add(
                            new UserScramCredentialUpsertion(
                                    principal,
                                    new ScramCredentialInfo(
                                            ScramMechanism.SCRAM_SHA_512, ITERATIONS),
                                    password));
                }
            }
        }
        for (String former : formerPrincipals) {
            if (users.contains(former) && !KafkaTenancy.RESERVED.contains(former)) {
                changes.add("deleted SCRAM user " + former + " (no longer in the registry)");
                alterations.add(
                        new UserScramCredentialDeletion(former, ScramMechanism.SCRAM_SHA_512));
            }
        }
        changes.addAll(describe("deleted ACL ", stale));
        changes.addAll(describe("created ACL ", missing));

        Set<String> existingTopics = get(admin.listTopics().names());
        List<NewTopic> replyTopics = new ArrayList<>();
        for (String tenant : tenants) {
            String topic = topics.replyTopicOf(tenant);
            if (!existingTopics.contains(topic)) {
                changes.add("created topic " + topic);
                replyTopics.add(new NewTopic(topic, replyTopicPartitions, (short) -1));
            }
        }
        List<ClientQuotaAlteration> quotas = quotas(registry, formerPrincipals, changes);
        if (dryRun) {
            return new Result(changes, Map.of());
        }
        if (!quotas.isEmpty()) {
            get(admin.alterClientQuotas(quotas).all());
        }
        if (!alterations.isEmpty()) {
            get(admin.alterUserScramCredentials(alterations).all());
        }
        if (!stale.isEmpty()) {
            get(admin.deleteAcls(stale.stream().map(AclBinding::toFilter).toList()).all());
        }
        if (!missing.isEmpty()) {
            get(admin.createAcls(missing).all());
        }
        if (!replyTopics.isEmpty()) {
            get(admin.createTopics(replyTopics).all());
        }
        return new Result(changes, passwords);
    }

    /** Broker quota keys, and the registry's quota each comes from. */
    static final String PRODUCE_BYTES = "producer_byte_rate";

    static final String REQUEST_PERCENTAGE = "request_percentage";

    /**
     * The alterations that make each tenant's broker quotas the registry's (a quota the registry
     * leaves at 0 removed), and a former tenant's removed; each change described in {@code
     * changes}.
     */
    private List<ClientQuotaAlteration> quotas(
            TenantRegistry registry, Set<String> former, List<String> changes)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<ClientQuotaEntity, Map<String, Double>> current =
                get(admin.describeClientQuotas(ClientQuotaFilter.all()).entities());
        List<ClientQuotaAlteration> out = new ArrayList<>();
        Set<String> users = new LinkedHashSet<>(registry.tenantIds());
        users.addAll(former);
        for (String user : users) {
            ClientQuotaEntity entity = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, user));
            Map<String, Double> has = current.getOrDefault(entity, Map.of());
            Map<String, Double> wants = new LinkedHashMap<>();
            if (registry.tenant(user).isPresent()) {
                TenantQuotas q = registry.quotas(user);
                if (q.kafkaProduceBytesPerSecond() > 0) {
                    wants.put(PRODUCE_BYTES, (double) q.kafkaProduceBytesPerSecond());
                }
                if (q.kafkaRequestPercentage() > 0) {
                    wants.put(REQUEST_PERCENTAGE, (double) q.kafkaRequestPercentage());
                }
            }
            List<ClientQuotaAlteration.Op> ops = new ArrayList<>();
            for (String key : List.of(PRODUCE_BYTES, REQUEST_PERCENTAGE)) {
                Double want = wants.get(key);
                Double is = has.get(key);
                if (want != null && !want.equals(is)) {
                    ops.add(new ClientQuotaAlteration.Op(key, want));
                    changes.add("set quota " + key + "=" + want.longValue() + " on User:" + user);
                } else if (want == null && is != null) {
                    ops.add(new ClientQuotaAlteration.Op(key, null));
                    changes.add("removed quota " + key + " on User:" + user);
                }
            }
            if (!ops.isEmpty()) {
                out.add(new ClientQuotaAlteration(entity, ops));
            }
        }
        return out;
    }

    /** Whether an ACL's resource is one of the job's, which the sync alone manages. */
    private boolean isOurs(ResourcePattern p) {
        return switch (p.resourceType()) {
            case TOPIC ->
                    (p.patternType() == PatternType.LITERAL && fixedTopics.contains(p.name()))
                            || p.name().startsWith(topics.repliesPrefix())
                            || topics.sharedReplyTopics()
                                    .contains(
                                            p.name()
                                                    + (p.patternType() == PatternType.PREFIXED
                                                            ? "*"
                                                            : ""));
            case GROUP ->
                    p.name().startsWith(topics.repliesPrefix())
                            || (p.patternType() == PatternType.PREFIXED
                                    && (p.name().equals(topics.groupIdPrefix())
                                            || p.name().equals(KafkaTenancy.BILLING)));
            case TRANSACTIONAL_ID ->
                    p.patternType() == PatternType.PREFIXED
                            && p.name().equals(topics.transactionalIdPrefix());
            default -> false;
        };
    }

    /**
     * One line per principal and resource: {@code created ACL User:acme WRITE, DESCRIBE on topic
     * zerolayer.requests} ({@code *} ends a prefix).
     */
    private static List<String> describe(String what, List<AclBinding> bindings) {
        record On(String principal, String resource) {}
        Map<On, List<String>> operations = new LinkedHashMap<>();
        for (AclBinding b : bindings) {
            ResourcePattern p = b.pattern();
            String resource =
                    p.resourceType().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                            + " "
                            + p.name()
                            + (p.patternType() == PatternType.PREFIXED ? "*" : "");
            operations
                    .computeIfAbsent(
                            new On(b.entry().principal(), resource), k -> new ArrayList<>())
                    .add(b.entry().operation().name());
        }
        List<String> lines = new ArrayList<>();
        operations.forEach(
                (on, ops) ->
                        lines.add(
                                what
                                        + on.principal()
                                        + " "
                                        + String.join(", ", ops.stream().sorted().toList())
                                        + " on "
                                        + on.resource()));
        return lines;
    }

    private static String password() {
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future)
            throws ExecutionException, InterruptedException, TimeoutException {
        return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
