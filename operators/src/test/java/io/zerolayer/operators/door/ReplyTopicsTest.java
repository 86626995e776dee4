package io.zerolayer.operators.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReplyTopicsTest {
    private static ReplyTopics topics() {
        return new ReplyTopics(
                "zerolayer.responses",
                List.of("zerolayer.replies.*", "billing-team.replies"),
                List.of("zerolayer.requests", "zerolayer.kernel-costs"));
    }

    @Test
    void aSignedTenantNamesReplyTopicsOnlyInsideItsOwnNamespace() {
        ReplyTopics namespaced = topics().withTenantNamespaces("zerolayer.replies.");
        assertThat(namespaced.resolve("zerolayer.replies.acme", "acme"))
                .isEqualTo("zerolayer.replies.acme");
        assertThat(namespaced.resolve("zerolayer.replies.acme.inbox-7", "acme"))
                .isEqualTo("zerolayer.replies.acme.inbox-7");
        for (String theirs :
                List.of(
                        "zerolayer.replies.globex",
                        "zerolayer.replies.globex.inbox",
                        // a prefix of another id is not a namespace: the '.' ends it
                        "zerolayer.replies.acmecorp",
                        "zerolayer.replies.acme-eu.inbox")) {
            assertThatThrownBy(() -> namespaced.resolve(theirs, "acme"))
                    .as(theirs)
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("outside tenant 'acme''s namespace")
                    .hasMessageContaining("zerolayer.replies.acme");
        }
        // names the operator allow-listed outside the namespaces stay open
        assertThat(namespaced.resolve("billing-team.replies", "acme"))
                .isEqualTo("billing-team.replies");
        assertThatThrownBy(() -> namespaced.resolve("zerolayer.kernel-costs", "acme"))
                .hasMessageContaining("one of the job's own topics");
        assertThatThrownBy(() -> namespaced.resolve("zerolayer.replies.acme.bad name", "acme"))
                .hasMessageContaining("not a legal Kafka topic name");
    }

    @Test
    void aSignedRequestNamingNoTopicIsAnsweredOnItsTenantsOwnTopicNeverTheSharedOne() {
        ReplyTopics namespaced = topics().withTenantNamespaces("zerolayer.replies.");
        assertThat(namespaced.resolve(null, "acme")).isEqualTo("zerolayer.replies.acme");
        assertThat(namespaced.resolve(" ", "globex")).isEqualTo("zerolayer.replies.globex");
        assertThat(namespaced.defaultTopic("acme")).isEqualTo("zerolayer.replies.acme");
        assertThatThrownBy(() -> namespaced.resolve("zerolayer.responses", "acme"))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("is shared and answers only unverified requests")
                .hasMessageContaining("zerolayer.replies.acme");
        assertThat(namespaced.pattern().matcher("zerolayer.replies.acme").matches()).isTrue();
        // unverified requests keep the shared topic
        assertThat(topics().resolve(null, "acme")).isEqualTo("zerolayer.responses");
        assertThat(topics().defaultTopic("acme")).isEqualTo("zerolayer.responses");
    }

    @Test
    void aTenantWhoseIdCouldReachIntoAnothersNamespaceHasNone() {
        ReplyTopics namespaced = topics().withTenantNamespaces("zerolayer.replies.");
        // "acme.eu" would own zerolayer.replies.acme.eu, which is inside acme's namespace
        for (String requested : new String[] {null, "zerolayer.replies.acme.eu"}) {
            assertThatThrownBy(() -> namespaced.resolve(requested, "acme.eu"))
                    .as(String.valueOf(requested))
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("tenant 'acme.eu' has no reply namespace");
        }
        assertThat(namespaced.resolve("billing-team.replies", "acme.eu"))
                .isEqualTo("billing-team.replies");
    }

    @Test
    void aNamespacePrefixMustBeATopicNameEndingInADot() {
        for (String bad : List.of("zerolayer.replies", "zero layer.", "")) {
            assertThatThrownBy(() -> topics().withTenantNamespaces(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must be a topic name ending in '.'");
        }
    }

    @Test
    void withoutNamespacesAnyAllowListedTopicIsAnyonesAsBefore() {
        assertThat(topics().resolve("zerolayer.replies.globex", "acme"))
                .isEqualTo("zerolayer.replies.globex");
    }
}
