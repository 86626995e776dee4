package io.zerolayer.operators.tenants;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may do what on the Kafka cluster, from the tenant registry: every topic of the job has an
 * owner, and only the owner's principal reads or writes it. Kafka principals are SCRAM users:
 *
 * <ul>
 *   <li>each tenant ({@code User:<tenant id>}) writes the requests topic and reads only its own
 *       reply topics, {@code zerolayer.replies.<tenant>} and those under {@code
 *       zerolayer.replies.<tenant>.} (which it may create), with consumer groups under the same
 *       prefix;
 *   <li>the job ({@link #JOB}) reads requests and control, writes every reply topic, the costs,
 *       cost summaries, graphs, audit chain and dead letters, reads back graphs and audit (a
 *       restart's warm graphs and chain heads), under its group and transactional-id prefixes;
 *   <li>billing ({@link #BILLING}) reads the costs, cost summaries and audit chain.
 * </ul>
 *
 * Nothing else is allowed: the broker runs with {@code allow.everyone.if.no.acl.found=false}.
 */
public final class KafkaTenancy {
    /** The job's principal. */
    public static final String JOB = "zerolayer-job";

    /** The principal of whoever reads the bill and the audit chain. */
    public static final String BILLING = "zerolayer-billing";

    /** Principal names no tenant may take. */
    public static final Set<String> RESERVED = Set.of(JOB, BILLING, "admin", "ANONYMOUS");

    /**
     * Tenant ids that can name a private namespace of topics: a Kafka topic name's characters but
     * {@code .}, which separates a tenant's namespace from its topics' names (with it, tenant
     * {@code a}'s prefix {@code zerolayer.replies.a.} would hold tenant {@code a.b}'s topic).
     */
    public static final Pattern NAMESPACE_ID = Pattern.compile("[A-Za-z0-9_-]{1,200}");

    /** The topics and name prefixes the job uses, as configured. */
    public record JobTopics(
            String requests,
            String responses,
            String repliesPrefix,
            String costs,
            String costSummary,
            String graphs,
            String audit,
            String deadLetters,
            String control,
            String groupIdPrefix,
            String transactionalIdPrefix,
            List<String> sharedReplyTopics) {
        /**
         * @param sharedReplyTopics the reply-topic allow-list's entries outside {@code
         *     repliesPrefix} (exact names, prefixes ending in {@code *}): open to every tenant's
         *     requests, so the job writes them; who reads them is the operator's to grant
         */
        public JobTopics {
            sharedReplyTopics = List.copyOf(sharedReplyTopics);
        }

        /** A tenant's own reply topic, which is also the default one. */
        public String replyTopicOf(String tenant) {
            return repliesPrefix + tenant;
        }

        /** The prefix of the tenant's other reply topics and of its consumer groups. */
        public String namespaceOf(String tenant) {
            return repliesPrefix + tenant + ".";
        }
    }

    private KafkaTenancy() {}

    /**
     * Whether {@code tenant} may be a Kafka principal with a namespace of its own.
     *
     * @return null when it may, else why not
     */
    public static String whyNotAPrincipal(String tenant) {
        if (RESERVED.contains(tenant)) {
            return "'" + tenant + "' is the name of one of ZeroLayer's own principals";
        }
        if (!NAMESPACE_ID.matcher(tenant).matches()) {
            return "a tenant id that names Kafka topics has 1–200 of letters, digits, '_' and '-'"
                    + " (no '.', which separates a tenant's namespace from its topic names)";
        }
        return null;
    }

    /** Every ACL the tenants, the job and billing should hold, and no other. */
    public static List<AclBinding> bindings(Set<String> tenants, JobTopics topics) {
        List<AclBinding> out = new ArrayList<>();
        for (String tenant : tenants) {
            String why = whyNotAPrincipal(tenant);
            if (why != null) {
                throw new IllegalArgumentException("Tenant '" + tenant + "': " + why);
            }
            String me = "User:" + tenant;
            allow(out, me, topic(topics.requests()), AclOperation.WRITE, AclOperation.DESCRIBE);
            allow(
                    out,
                    me,
                    topic(topics.replyTopicOf(tenant)),
                    AclOperation.READ,
                    AclOperation.DESCRIBE);
            allow(
                    out,
                    me,
                    prefixed(ResourceType.TOPIC, topics.namespaceOf(tenant)),
                    AclOperation.READ,
                    AclOperation.DESCRIBE,
                    AclOperation.CREATE);
            allow(
                    out,
                    me,
                    prefixed(ResourceType.GROUP, topics.namespaceOf(tenant)),
                    AclOperation.READ);
        }
        String job = "User:" + JOB;
        allow(out, job, topic(topics.requests()), AclOperation.READ, AclOperation.DESCRIBE);
        allow(out, job, topic(topics.control()), AclOperation.READ, AclOperation.DESCRIBE);
        // what it writes it may read too: a restarted transactional sink asks which producers
        // hold open transactions on its topics (DescribeProducers needs READ), and warm graphs and
        // audit chain heads are read back on restart
        for (String written :
                List.of(
                        topics.responses(),
                        topics.costs(),
                        topics.costSummary(),
                        topics.deadLetters(),
                        topics.graphs(),
                        topics.audit())) {
            allow(
                    out,
                    job,
                    topic(written),
                    AclOperation.WRITE,
                    AclOperation.READ,
                    AclOperation.DESCRIBE);
        }
        // every tenant's reply topics; reading them is how a restarted exactly-once reply sink
        // finds the producers with open transactions on them
        allow(
                out,
                job,
                prefixed(ResourceType.TOPIC, topics.repliesPrefix()),
                AclOperation.WRITE,
                AclOperation.READ,
                AclOperation.DESCRIBE);
        for (String shared : topics.sharedReplyTopics()) {
            allow(
                    out,
                    job,
                    shared.endsWith("*")
                            ? prefixed(ResourceType.TOPIC, shared.substring(0, shared.length() - 1))
                            : topic(shared),
                    AclOperation.WRITE,
                    AclOperation.READ,
                    AclOperation.DESCRIBE);
        }
        allow(out, job, prefixed(ResourceType.GROUP, topics.groupIdPrefix()), AclOperation.READ);
        allow(
                out,
                job,
                prefixed(ResourceType.TRANSACTIONAL_ID, topics.transactionalIdPrefix()),
                AclOperation.WRITE,
                AclOperation.DESCRIBE);
        String billing = "User:" + BILLING;
        for (String read : List.of(topics.costs(), topics.costSummary(), topics.audit())) {
            allow(out, billing, topic(read), AclOperation.READ, AclOperation.DESCRIBE);
        }
        allow(out, billing, prefixed(ResourceType.GROUP, BILLING), AclOperation.READ);
        return out;
    }

    /** The principals {@link #bindings} names: the tenants', the job's and billing's. */
    public static Set<String> principals(Set<String> tenants) {
        Set<String> all = new LinkedHashSet<>(tenants);
        all.add(JOB);
        all.add(BILLING);
        return all;
    }

    private static ResourcePattern topic(String name) {
        return new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL);
    }

    private static ResourcePattern prefixed(ResourceType type, String prefix) {
        return new ResourcePattern(type, prefix, PatternType.PREFIXED);
    }

    private static void allow(
            List<AclBinding> out,
            String principal,
            ResourcePattern pattern,
            AclOperation... operations) {
        for (AclOperation op : operations) {
            out.add(
                    new AclBinding(
                            pattern,
                            new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
        }
    }
}
