package io.zerolayer.operators.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.junit.jupiter.api.Test;

class KafkaTenancyTest {
    private static final KafkaTenancy.JobTopics TOPICS =
            new KafkaTenancy.JobTopics(
                    "zerolayer.requests",
                    "zerolayer.responses",
                    "zerolayer.replies.",
                    "zerolayer.kernel-costs",
                    "zerolayer.cost-summary",
                    "zerolayer.graphs",
                    "zerolayer.audit",
                    "zerolayer.requests-dlt",
                    "zerolayer.control",
                    "zerolayer",
                    "zerolayer",
                    java.util.List.of("billing-team.replies"));

    @Test
    void aTenantWritesRequestsAndReadsOnlyItsOwnNamespace() {
        List<AclBinding> acme =
                KafkaTenancy.bindings(Set.of("acme", "acmecorp"), TOPICS).stream()
                        .filter(b -> b.entry().principal().equals("User:acme"))
                        .toList();
        assertThat(acme)
                .allSatisfy(
                        b ->
                                assertThat(b.pattern().name())
                                        .satisfiesAnyOf(
                                                n -> assertThat(n).isEqualTo("zerolayer.requests"),
                                                n ->
                                                        assertThat(n)
                                                                .isIn(
                                                                        "zerolayer.replies.acme",
                                                                        "zerolayer.replies.acme.")));
        // the namespace ends with '.', so acme's prefix does not cover acmecorp's topics
        assertThat(acme)
                .filteredOn(b -> b.pattern().patternType() == PatternType.PREFIXED)
                .extracting(b -> b.pattern().name())
                .containsOnly("zerolayer.replies.acme.");
        assertThat(acme)
                .filteredOn(b -> b.pattern().name().equals("zerolayer.requests"))
                .extracting(b -> b.entry().operation())
                .containsExactlyInAnyOrder(AclOperation.WRITE, AclOperation.DESCRIBE);
    }

    @Test
    void onlyTheJobWritesItsTopicsAndOnlyBillingAndTheJobReadTheBill() {
        List<AclBinding> all = KafkaTenancy.bindings(Set.of("acme"), TOPICS);
        for (String topic :
                List.of(
                        "zerolayer.kernel-costs",
                        "zerolayer.audit",
                        "zerolayer.requests-dlt",
                        "zerolayer.graphs",
                        "zerolayer.cost-summary")) {
            assertThat(all)
                    .filteredOn(b -> b.pattern().name().equals(topic))
                    .filteredOn(b -> b.entry().operation() == AclOperation.WRITE)
                    .extracting(b -> b.entry().principal())
                    .as("writers of %s", topic)
                    .containsOnly("User:" + KafkaTenancy.JOB);
        }
        assertThat(all)
                .filteredOn(b -> b.pattern().name().equals("zerolayer.kernel-costs"))
                .filteredOn(b -> b.entry().operation() == AclOperation.READ)
                .extracting(b -> b.entry().principal())
                .containsOnly("User:" + KafkaTenancy.JOB, "User:" + KafkaTenancy.BILLING);
        // a reply topic the operator allow-listed for every tenant: the job writes it, no tenant
        // reads it unless the operator grants that
        assertThat(all)
                .filteredOn(b -> b.pattern().name().equals("billing-team.replies"))
                .extracting(b -> b.entry().principal())
                .containsOnly("User:" + KafkaTenancy.JOB);
        assertThat(all)
                .filteredOn(b -> b.pattern().name().equals("zerolayer.control"))
                .extracting(b -> b.entry().operation())
                .doesNotContain(AclOperation.WRITE);
    }

    @Test
    void tenantIdsThatCannotNameANamespaceOrTakeOurPrincipalsAreRefused() {
        assertThat(KafkaTenancy.whyNotAPrincipal("acme-eu_1")).isNull();
        assertThat(KafkaTenancy.whyNotAPrincipal("a.b")).contains("no '.'");
        assertThat(KafkaTenancy.whyNotAPrincipal("x y")).contains("letters, digits");
        assertThat(KafkaTenancy.whyNotAPrincipal(KafkaTenancy.JOB)).contains("own principals");
        assertThatThrownBy(() -> KafkaTenancy.bindings(Set.of("a.b"), TOPICS))
                .hasMessageContaining("Tenant 'a.b'");
    }
}
