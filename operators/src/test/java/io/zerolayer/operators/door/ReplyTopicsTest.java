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
        // names the operator allow-listed outside the namespaces, and the default, stay open
        assertThat(namespaced.resolve("billing-team.replies", "acme"))
                .isEqualTo("billing-team.replies");
        assertThat(namespaced.resolve(null, "acme")).isEqualTo("zerolayer.responses");
        assertThatThrownBy(() -> namespaced.resolve("zerolayer.kernel-costs", "acme"))
                .hasMessageContaining("one of the job's own topics");
    }

    @Test
    void withoutNamespacesAnyAllowListedTopicIsAnyonesAsBefore() {
        assertThat(topics().resolve("zerolayer.replies.globex", "acme"))
                .isEqualTo("zerolayer.replies.globex");
    }
}
