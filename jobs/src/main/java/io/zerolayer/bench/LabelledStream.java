package io.zerolayer.bench;

import io.zerolayer.operators.eval.EvalCorpora;
import io.zerolayer.operators.eval.LabelledPrompts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The prompts of {@link Workload#LABELLED}: every item of the eval corpora ({@link EvalCorpora})
 * with its right answer, read once per JVM from where their Debian packages install them ({@code
 * /}, or the folder {@value #CORPORA_ROOT_PROPERTY} names: the tests' fixtures).
 */
final class LabelledStream {
    static final String CORPORA_ROOT_PROPERTY = "zerolayer.bench.corpora-root";

    private LabelledStream() {}

    private static final class Holder {
        static final List<LabelledPrompts.LabelledPrompt> PROMPTS = read();
    }

    /** Every labelled prompt, classification corpora first, then the FAQ's questions. */
    static List<LabelledPrompts.LabelledPrompt> prompts() {
        return Holder.PROMPTS;
    }

    /** Each corpus missing here, with the package that installs it. */
    static List<String> missing() {
        EvalCorpora corpora = corpora();
        try {
            corpora.classification();
            corpora.pythonFaq();
        } catch (IOException e) {
            return List.of(e.getMessage());
        }
        return corpora.missing();
    }

    private static EvalCorpora corpora() {
        return new EvalCorpora(Path.of(System.getProperty(CORPORA_ROOT_PROPERTY, "/")));
    }

    private static List<LabelledPrompts.LabelledPrompt> read() {
        EvalCorpora corpora = corpora();
        List<LabelledPrompts.LabelledPrompt> all = new ArrayList<>();
        try {
            for (var c : corpora.classification()) {
                all.addAll(LabelledPrompts.classification(c));
            }
            var faq = corpora.pythonFaq();
            if (faq != null) {
                all.addAll(LabelledPrompts.questions(faq));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!corpora.missing().isEmpty()) {
            throw new IllegalStateException(
                    "The labelled stream needs every corpus: "
                            + String.join("; ", corpora.missing()));
        }
        return List.copyOf(all);
    }
}
