package io.zerolayer.operators.door;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The topics a requester may name in {@code kafka_replyTopic}: an allow-list of exact names and
 * prefixes ({@code zerolayer.replies.*}), never one of the job's own topics. Without the list any
 * requester could make the job write into the billing, graph or control streams.
 *
 * <pre>{@code
 * ReplyTopics topics = new ReplyTopics("zerolayer.responses",
 *         List.of("zerolayer.responses", "zerolayer.replies.*"),
 *         List.of("zerolayer.requests", "zerolayer.kernel-costs", ...));
 * topics.resolve(null);                        // "zerolayer.responses"
 * topics.resolve("zerolayer.replies.billing"); // allowed by the prefix
 * topics.resolve("zerolayer.kernel-costs");    // InvalidRequestException
 * }</pre>
 */
public final class ReplyTopics implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Kafka's own rule for topic names (kafka.common.internals.Topic). */
    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final String defaultTopic;
    private final List<String> names = new ArrayList<>();
    private final List<String> prefixes = new ArrayList<>();
    private final Set<String> jobTopics;

    /** Where tenants' namespaces start ({@code zerolayer.replies.}), or null: no namespaces. */
    private String namespacePrefix;

    /**
     * @param defaultTopic where replies go when a request names no topic; always allowed
     * @param allowed exact topic names, and prefixes written with a trailing {@code *}
     * @param jobTopics the job's own topics (requests, costs, graphs, dead letters, control …):
     *     never a reply topic, whatever the allow-list says
     * @throws IllegalArgumentException when an entry is not a legal topic name or prefix, or names
     *     one of the job's own topics
     */
    public ReplyTopics(
            String defaultTopic, Collection<String> allowed, Collection<String> jobTopics) {
        this.defaultTopic = defaultTopic;
        this.jobTopics = new TreeSet<>(jobTopics);
        this.jobTopics.remove(defaultTopic);
        for (String entry : allowed) {
            String e = entry.strip();
            boolean prefix = e.endsWith("*");
            String name = prefix ? e.substring(0, e.length() - 1) : e;
            if (!(prefix && name.isEmpty()) && !LEGAL.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "Reply topic allow-list entry '"
                                + entry
                                + "' is not a topic name or a prefix ending in *: use letters,"
                                + " digits, '.', '_' and '-'");
            }
            if (!prefix && this.jobTopics.contains(name)) {
                throw new IllegalArgumentException(
                        "Reply topic allow-list entry '"
                                + entry
                                + "' is one of the job's own topics; replies can never go there");
            }
            (prefix ? prefixes : names).add(name);
        }
    }

    /**
     * These topics, with the topics under {@code prefix} divided among tenants: a request's reply
     * goes, by default, to its tenant's own topic {@code <prefix><tenant>}, and a request may name
     * only a topic inside its own tenant's namespace, that one or a topic under {@code
     * <prefix><tenant>.}. The shared default topic is then refused: on a broker with ACLs no tenant
     * could read it. For verified tenants only: an unsigned tenant id is anyone's claim.
     *
     * @param prefix where the namespaces start, a legal topic name ending in {@code .}
     * @throws IllegalArgumentException when it is not
     */
    public ReplyTopics withTenantNamespaces(String prefix) {
        if (!prefix.endsWith(".") || !LEGAL.matcher(prefix).matches()) {
            throw new IllegalArgumentException(
                    "Tenant reply prefix '"
                            + prefix
                            + "' must be a topic name ending in '.' (letters, digits, '.', '_' and"
                            + " '-')");
        }
        this.namespacePrefix = prefix;
        return this;
    }

    /**
     * The topic a reply to a request of {@code tenant} goes to. In a {@linkplain
     * #withTenantNamespaces namespaced} list: the tenant's own topic when the request names none,
     * and a topic under the namespaces' prefix only inside the tenant's own; otherwise {@link
     * #resolve(String)}.
     *
     * @throws InvalidRequestException as {@link #resolve(String)} does, when the topic is in
     *     another tenant's namespace or is the shared default, or when the tenant's id cannot name
     *     a namespace
     */
    public String resolve(String requested, String tenant) {
        if (namespacePrefix == null) {
            return resolve(requested);
        }
        String own = namespacePrefix + tenant;
        boolean blank = requested == null || requested.isBlank();
        if (blank || requested.startsWith(namespacePrefix)) {
            String topic = blank ? own : requested;
            if (!io.zerolayer.operators.tenants.KafkaTenancy.NAMESPACE_ID
                    .matcher(String.valueOf(tenant))
                    .matches()) {
                throw new InvalidRequestException(
                        "tenant '"
                                + InvalidRequestException.excerpt(String.valueOf(tenant))
                                + "' has no reply namespace: a tenant id that names Kafka topics"
                                + " has 1-200 of letters, digits, '_' and '-'; name a reply topic"
                                + " on zerolayer.replies.allowed-topics outside "
                                + namespacePrefix
                                + "*");
            }
            if (!topic.equals(own) && !topic.startsWith(own + ".")) {
                throw new InvalidRequestException(
                        "kafka_replyTopic '"
                                + InvalidRequestException.excerpt(topic)
                                + "' is outside tenant '"
                                + tenant
                                + "''s namespace: it may name "
                                + own
                                + " and topics under "
                                + own
                                + ".");
            }
            return legal(topic);
        }
        if (requested.equals(defaultTopic)) {
            throw new InvalidRequestException(
                    "kafka_replyTopic '"
                            + defaultTopic
                            + "' is shared and answers only unverified requests; a signed"
                            + " request's reply goes to its tenant's namespace: leave the header"
                            + " out for "
                            + own
                            + ", or name a topic under "
                            + own
                            + ".");
        }
        return resolve(requested);
    }

    /**
     * The topic a reply goes to for a request's {@code kafka_replyTopic} header value.
     *
     * @param requested the header's value, or null (or blank) for the default topic
     * @throws InvalidRequestException when the name is not a legal topic, is one of the job's own
     *     topics or is not on the allow-list; the message says which
     */
    public String resolve(String requested) {
        if (requested == null || requested.isBlank()) {
            return defaultTopic;
        }
        if (requested.equals(defaultTopic)) {
            return defaultTopic;
        }
        legal(requested);
        if (names.contains(requested) || prefixes.stream().anyMatch(requested::startsWith)) {
            return requested;
        }
        throw new InvalidRequestException(
                "kafka_replyTopic '"
                        + requested
                        + "' is not on the reply-topic allow-list"
                        + " (zerolayer.replies.allowed-topics: "
                        + describe()
                        + ")");
    }

    /**
     * {@code topic}, when it is a legal Kafka topic name and not one of the job's own.
     *
     * @throws InvalidRequestException saying which it is not
     */
    private String legal(String topic) {
        if (!LEGAL.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new InvalidRequestException(
                    "kafka_replyTopic '"
                            + InvalidRequestException.excerpt(topic)
                            + "' is not a legal Kafka topic name (1-249 of letters, digits, '.',"
                            + " '_' and '-')");
        }
        if (jobTopics.contains(topic)) {
            throw new InvalidRequestException(
                    "kafka_replyTopic '"
                            + topic
                            + "' is one of the job's own topics; replies cannot be written there");
        }
        return topic;
    }

    /** The shared topic replies go to when a request names none, outside namespaces. */
    public String defaultTopic() {
        return defaultTopic;
    }

    /**
     * Where replies to {@code tenant} go when a request names no topic: the shared default topic,
     * or in a {@linkplain #withTenantNamespaces namespaced} list the tenant's own.
     */
    public String defaultTopic(String tenant) {
        return namespacePrefix == null ? defaultTopic : namespacePrefix + tenant;
    }

    /**
     * A regular expression matching every topic a reply may be written to (the default topic, the
     * names and the prefixes of the list). It may match more than {@link #resolve} admits (one of
     * the job's own topics under a prefix): it says where to look for a sink's own transactions,
     * not where a reply may go.
     */
    public Pattern pattern() {
        List<String> alternatives = new ArrayList<>();
        alternatives.add(Pattern.quote(defaultTopic));
        names.forEach(n -> alternatives.add(Pattern.quote(n)));
        prefixes.forEach(p -> alternatives.add(Pattern.quote(p) + ".*"));
        if (namespacePrefix != null) {
            alternatives.add(Pattern.quote(namespacePrefix) + ".*");
        }
        return Pattern.compile(String.join("|", alternatives));
    }

    /** The allow-list as configured: default topic, names, then prefixes with their {@code *}. */
    public String describe() {
        List<String> all = new ArrayList<>();
        all.add(defaultTopic);
        names.stream().filter(n -> !n.equals(defaultTopic)).forEach(all::add);
        prefixes.forEach(p -> all.add(p + "*"));
        return String.join(", ", all);
    }
}
