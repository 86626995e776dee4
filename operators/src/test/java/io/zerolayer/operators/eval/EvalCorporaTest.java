package io.zerolayer.operators.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each corpus read in its own package's format, from fixtures laid out as the packages install them
 * (src/test/resources/quality-corpora): XML entities, ARFF escapes, fortune separators and
 * reStructuredText headings.
 */
class EvalCorporaTest {
    static final Path FIXTURES = Path.of("src/test/resources/quality-corpora");

    @Test
    void reutersXmlFromTmKeepsTheTwoTopicsAndDecodesEntities() throws Exception {
        ClassificationCorpus c = new EvalCorpora(FIXTURES).reutersAcqCrude();
        // two acq files, one crude file, and of reuters-21578.xml only the crude article (the
        // cocoa one has neither topic, the brief one no text)
        assertThat(c.items())
                .extracting(LabelledText::label)
                .containsExactly("acq", "acq", "crude", "crude");
        assertThat(c.items().get(0).text())
                .startsWith("ACME HOLDINGS <ACME> TO ACQUIRE WIDGET MAKER.\nAcme Holdings Inc said")
                .contains("The company's board");
        assertThat(c.majorityShare()).isEqualTo(0.5);
    }

    @Test
    void wekaArffRowsJoinCornAndGrainIntoThreeLabels() throws Exception {
        ClassificationCorpus c = new EvalCorpora(FIXTURES).reutersGrain();
        assertThat(c.items()).hasSize(6); // three rows in train and in test
        assertThat(c.items().subList(0, 3))
                .extracting(LabelledText::label)
                .containsExactly("corn", "grain", "other");
        assertThat(c.items().get(0).text()).contains("rose sharply as farmers\nsold the crop");
        assertThat(c.items().get(2).text()).contains("the company's earnings report said.");
    }

    @Test
    void fortunesTakeTheirFileAsTheirLabel() throws Exception {
        ClassificationCorpus c = new EvalCorpora(FIXTURES).fortunes();
        assertThat(c.items()).hasSize(2 * EvalCorpora.FORTUNE_TOPICS.size());
        assertThat(c.items().get(18).id()).isEqualTo("pets#1");
        assertThat(c.items().get(18).text())
                .isEqualTo("The cat slept on the sofa while the dog chased its tail.");
        assertThat(c.hypotheses()).containsEntry("pets", "pets and cats and dogs");
    }

    @Test
    void theFaqsQuestionsAreItsDashUnderlinedHeadingsEndingInAQuestionMark() throws Exception {
        FaqCorpus faq = new EvalCorpora(FIXTURES).pythonFaq();
        assertThat(faq.pages()).hasSize(1); // index.rst.txt asks nothing
        List<FaqCorpus.Section> s = faq.pages().get(0).sections();
        assertThat(s)
                .extracting(FaqCorpus.Section::question)
                .containsExactly(
                        "What is Python?",
                        "How do I install Python on Windows?",
                        "Why does my loop over a list skip elements when I remove items?");
        assertThat(s.get(2).answer())
                .contains("for item in items[:]:")
                .doesNotContain("real world");
        assertThat(faq.source())
                .isEqualTo("python3-doc: usr/share/doc/python3.11/html/_sources/faq/*.rst.txt");
    }

    @Test
    void aMissingCorpusNamesItsPackageAndTheInstallLine(@TempDir Path empty) throws Exception {
        EvalCorpora corpora = new EvalCorpora(empty);
        assertThat(corpora.classification()).isEmpty();
        assertThat(corpora.pythonFaq()).isNull();
        assertThat(corpora.missing())
                .hasSize(4)
                .allSatisfy(m -> assertThat(m).contains(EvalCorpora.APT_GET));
        assertThat(corpora.missing().get(0))
                .startsWith("reuters-acq-crude: not found at /usr/lib/R/site-library/tm/texts/acq")
                .contains("package r-cran-tm");
        assertThat(corpora.missing()).anySatisfy(m -> assertThat(m).contains("package weka"));
        assertThat(corpora.missing()).anySatisfy(m -> assertThat(m).contains("package fortunes"));
        assertThat(corpora.missing())
                .anySatisfy(m -> assertThat(m).contains("package python3-doc"));
    }
}
