package io.zerolayer.operators;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages of {@code operators} in the order a request passes them, each using only those
 * before it: the grammar, document readers and Kafka records, the prompt, its contracts, its
 * structure, warm-up prompts, the heads fit on a task's labelled examples, the tasks a graph can
 * run, the compiler that plans them, prices, the execution of a plan, who may send requests and how
 * much, the audit chain, the door a request passes (authentication, admission), its route to a
 * slot, the replies it gets, the slot's batches, and Flink last. Flink's API is used in {@code
 * flink} only, and {@code flink} holds adapters only: every class in it uses Flink.
 */
class PackageDependenciesTest {
    static final List<String> PIPELINE_ORDER =
            List.of(
                    "grammar",
                    "documents",
                    "kafka",
                    "prompt",
                    "quality",
                    "contracts",
                    "structure",
                    "warmup",
                    "heads",
                    "tasks",
                    "compiler",
                    "costs",
                    "execution",
                    "eval",
                    "tenants",
                    "audit",
                    "door",
                    "routing",
                    "replies",
                    "scheduling",
                    "flink");

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.zerolayer.operators");
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.zerolayer.operators.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void eachPackageUsesOnlyThoseBeforeItInPipelineOrder() {
        for (int i = 0; i < PIPELINE_ORDER.size() - 1; i++) {
            String[] later =
                    PIPELINE_ORDER.subList(i + 1, PIPELINE_ORDER.size()).stream()
                            .map(p -> "io.zerolayer.operators." + p + "..")
                            .toArray(String[]::new);
            noClasses()
                    .that()
                    .resideInAPackage("io.zerolayer.operators." + PIPELINE_ORDER.get(i) + "..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(later)
                    .check(classes);
        }
    }

    @Test
    void everyPackageIsPlacedInTheOrder() {
        classes.stream()
                .map(c -> c.getPackageName())
                .filter(p -> p.startsWith("io.zerolayer.operators."))
                .map(p -> p.substring("io.zerolayer.operators.".length()).split("\\.")[0])
                .distinct()
                .forEach(
                        p ->
                                org.assertj.core.api.Assertions.assertThat(PIPELINE_ORDER)
                                        .as("package %s in PIPELINE_ORDER", p)
                                        .contains(p));
    }

    @Test
    void everyClassInTheFlinkPackageUsesFlink() {
        classes()
                .that()
                .resideInAPackage("io.zerolayer.operators.flink..")
                .and()
                .areTopLevelClasses()
                .should(useFlink())
                .check(classes);
    }

    /** Uses a class of Flink's, itself or through one of its nested classes. */
    private static ArchCondition<JavaClass> useFlink() {
        return new ArchCondition<>("use Flink's API") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                boolean uses =
                        Stream.concat(
                                        Stream.of(c),
                                        classes.stream()
                                                .filter(
                                                        n ->
                                                                n.getName()
                                                                        .startsWith(
                                                                                c.getName() + "$")))
                                .flatMap(n -> n.getDirectDependenciesFromSelf().stream())
                                .anyMatch(
                                        d ->
                                                d.getTargetClass()
                                                        .getPackageName()
                                                        .startsWith("org.apache.flink"));
                if (!uses) {
                    events.add(
                            SimpleConditionEvent.violated(
                                    c,
                                    c.getName()
                                            + " uses no Flink API: move it to the package of its"
                                            + " concern"));
                }
            }
        };
    }

    @Test
    void flinksApiIsUsedInTheFlinkPackageOnly() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.zerolayer.operators.flink..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.flink..")
                .check(classes);
    }
}
