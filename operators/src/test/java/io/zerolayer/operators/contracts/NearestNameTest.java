package io.zerolayer.operators.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A typo is met with the name it misspells, and only a typo. */
class NearestNameTest {
    private static final List<String> TAGS = List.of("document", "section", "question", "labels");

    @Test
    void aNameATypoAwayIsSuggested() {
        assertThat(NearestName.of("docment", TAGS)).contains("document");
        assertThat(NearestName.of("SECTON", TAGS)).contains("section");
    }

    @Test
    void nothingIsSuggestedForAnExactNameOrOneFarFromAll() {
        assertThat(NearestName.of("labels", TAGS)).isEmpty();
        assertThat(NearestName.of("xyz", TAGS)).isEmpty();
        assertThat(NearestName.of("", TAGS)).isEmpty();
        assertThat(NearestName.of(null, TAGS)).isEmpty();
    }

    @Test
    void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        assertThat(NearestName.editDistance("kitten", "sitting")).isEqualTo(3);
        assertThat(NearestName.editDistance("same", "same")).isZero();
    }
}
