package io.zerolayer.operators.eval;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The labelled public corpora {@code zerolayer eval} measures answers on, each read in its own
 * format from where its Debian package installs it under {@code root} ({@code /} on a machine that
 * has them; a folder of fixtures laid out alike in tests):
 *
 * <ul>
 *   <li>{@code reuters-acq-crude}: Reuters-21578 articles of {@code r-cran-tm} ({@code texts/acq},
 *       {@code texts/crude}, and those of {@code texts/reuters-21578.xml} with one of the two
 *       topics), acquisitions against crude oil;
 *   <li>{@code reuters-grain}: the Reuters-21578 ModApte articles of {@code weka}'s {@code
 *       examples/ReutersCorn-*.arff} and {@code ReutersGrain-*.arff} (the same texts, labelled corn
 *       and grain), three ways: corn, other grain, neither;
 *   <li>{@code fortunes-topics}: the first {@value #FORTUNES_PER_CATEGORY} entries of eleven topic
 *       files of {@code fortunes};
 *   <li>{@code python-faq}: the question → answer sections of {@code python3-doc}'s {@code
 *       faq/*.rst.txt}.
 * </ul>
 *
 * A corpus whose files are missing is reported with the package that installs it ({@link
 * #missing}); the others are still measured.
 */
public final class EvalCorpora {
    /** What installs every corpus. */
    public static final String APT_GET =
            "sudo apt-get install --no-install-recommends r-cran-tm weka fortunes python3-doc";

    static final int FORTUNES_PER_CATEGORY = 50;

    /** The Debian packages the corpora come from, in the order of {@link #APT_GET}. */
    public static final java.util.List<String> PACKAGES =
            java.util.List.of("r-cran-tm", "weka", "fortunes", "python3-doc");

    /** Fortune file → the label text the prompt offers. */
    static final Map<String, String> FORTUNE_TOPICS = new LinkedHashMap<>();

    static {
        FORTUNE_TOPICS.put("computers", "computers and programming");
        FORTUNE_TOPICS.put("food", "food and eating");
        FORTUNE_TOPICS.put("law", "law and lawyers and courts");
        FORTUNE_TOPICS.put("medicine", "medicine and doctors and health");
        FORTUNE_TOPICS.put("love", "love and romance");
        FORTUNE_TOPICS.put("politics", "politics and government");
        FORTUNE_TOPICS.put("science", "science and scientists");
        FORTUNE_TOPICS.put("sports", "sports and games");
        FORTUNE_TOPICS.put("education", "education and school and teachers");
        FORTUNE_TOPICS.put("pets", "pets and cats and dogs");
        FORTUNE_TOPICS.put("drugs", "drugs and alcohol");
    }

    private static final Path TM = Path.of("usr/lib/R/site-library/tm/texts");
    private static final Path WEKA = Path.of("usr/share/doc/weka/examples");
    private static final Path FORTUNES = Path.of("usr/share/games/fortunes");
    private static final Path PYTHON_DOC = Path.of("usr/share/doc");

    private final Path root;
    private final List<String> missing = new ArrayList<>();

    public EvalCorpora(Path root) {
        this.root = root;
    }

    /** The corpora read so far that were missing, each with the package that installs it. */
    public List<String> missing() {
        return List.copyOf(missing);
    }

    /** The classification corpora that are installed, in a fixed order. */
    public List<ClassificationCorpus> classification() throws IOException {
        List<ClassificationCorpus> out = new ArrayList<>();
        addIfPresent(out, reutersAcqCrude());
        addIfPresent(out, reutersGrain());
        addIfPresent(out, fortunes());
        return out;
    }

    private static void addIfPresent(List<ClassificationCorpus> out, ClassificationCorpus c) {
        if (c != null) {
            out.add(c);
        }
    }

    ClassificationCorpus reutersAcqCrude() throws IOException {
        Path dir = root.resolve(TM);
        if (!Files.isDirectory(dir.resolve("acq")) || !Files.isDirectory(dir.resolve("crude"))) {
            return missing("reuters-acq-crude", "r-cran-tm", dir.resolve("acq"));
        }
        Map<String, String> hypotheses = new LinkedHashMap<>();
        hypotheses.put("acq", "corporate acquisitions and mergers and share stakes");
        hypotheses.put("crude", "crude oil");
        List<LabelledText> items = new ArrayList<>();
        for (String topic : hypotheses.keySet()) {
            for (Path f : sorted(dir.resolve(topic), "*.xml")) {
                for (ReutersXml.Article a : ReutersXml.read(f)) {
                    items.add(new LabelledText(topic + "/" + a.id(), a.text(), topic));
                }
            }
        }
        Path more = dir.resolve("reuters-21578.xml");
        if (Files.isRegularFile(more)) {
            for (ReutersXml.Article a : ReutersXml.read(more)) {
                List<String> ours = a.topics().stream().filter(hypotheses::containsKey).toList();
                if (ours.size() == 1) {
                    items.add(new LabelledText(a.id(), a.text(), ours.get(0)));
                }
            }
        }
        return new ClassificationCorpus(
                "reuters-acq-crude",
                "r-cran-tm: texts/acq/*.xml, texts/crude/*.xml, texts/reuters-21578.xml",
                hypotheses,
                items);
    }

    ClassificationCorpus reutersGrain() throws IOException {
        Path dir = root.resolve(WEKA);
        Map<String, String> hypotheses = new LinkedHashMap<>();
        hypotheses.put("corn", "corn and maize crops and trade");
        hypotheses.put("grain", "wheat and barley and other grain crops and trade");
        hypotheses.put("other", "company earnings and mergers and financial markets");
        List<LabelledText> items = new ArrayList<>();
        for (String split : List.of("train", "test")) {
            Path corn = arff(dir, "ReutersCorn-" + split);
            Path grain = arff(dir, "ReutersGrain-" + split);
            if (corn == null || grain == null) {
                return missing(
                        "reuters-grain", "weka", dir.resolve("ReutersCorn-" + split + ".arff"));
            }
            List<ArffFile.Row> cornRows = ArffFile.read(corn);
            List<ArffFile.Row> grainRows = ArffFile.read(grain);
            if (cornRows.size() != grainRows.size()) {
                throw new IOException(
                        corn
                                + " and "
                                + grain
                                + " should hold the same articles; they differ in count");
            }
            for (int i = 0; i < cornRows.size(); i++) {
                ArffFile.Row c = cornRows.get(i);
                ArffFile.Row g = grainRows.get(i);
                if (!c.text().equals(g.text())) {
                    throw new IOException(corn + " and " + grain + " differ at article " + (i + 1));
                }
                String label =
                        c.value().equals("1") ? "corn" : g.value().equals("1") ? "grain" : "other";
                items.add(new LabelledText(split + "#" + (i + 1), c.text(), label));
            }
        }
        return new ClassificationCorpus(
                "reuters-grain",
                "weka: examples/ReutersCorn-{train,test}.arff,"
                        + " examples/ReutersGrain-{train,test}.arff",
                hypotheses,
                items);
    }

    /**
     * The ARFF file {@code name} in {@code dir}, plain or gzipped (then unpacked to a temp file).
     */
    private static Path arff(Path dir, String name) throws IOException {
        Path plain = dir.resolve(name + ".arff");
        if (Files.isRegularFile(plain)) {
            return plain;
        }
        Path gz = dir.resolve(name + ".arff.gz");
        if (!Files.isRegularFile(gz)) {
            return null;
        }
        Path out = Files.createTempFile(name, ".arff");
        out.toFile().deleteOnExit();
        try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(gz))) {
            Files.copy(in, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return out;
    }

    ClassificationCorpus fortunes() throws IOException {
        Path dir = root.resolve(FORTUNES);
        List<LabelledText> items = new ArrayList<>();
        for (String topic : FORTUNE_TOPICS.keySet()) {
            Path f = dir.resolve(topic);
            if (!Files.isRegularFile(f)) {
                return missing("fortunes-topics", "fortunes", f);
            }
            List<String> entries = FortuneFile.read(f);
            for (int i = 0; i < Math.min(FORTUNES_PER_CATEGORY, entries.size()); i++) {
                items.add(new LabelledText(topic + "#" + (i + 1), entries.get(i), topic));
            }
        }
        return new ClassificationCorpus(
                "fortunes-topics",
                "fortunes: games/fortunes/{"
                        + String.join(",", FORTUNE_TOPICS.keySet())
                        + "}, the first "
                        + FORTUNES_PER_CATEGORY
                        + " entries of each",
                FORTUNE_TOPICS,
                items);
    }

    /** The Python FAQ's pages; null (and reported missing) without python3-doc. */
    public FaqCorpus pythonFaq() throws IOException {
        Path doc = root.resolve(PYTHON_DOC);
        Path faq = null;
        if (Files.isDirectory(doc)) {
            try (Stream<Path> dirs = Files.list(doc)) {
                faq =
                        dirs.filter(d -> d.getFileName().toString().matches("python3(\\.\\d+)?"))
                                .map(d -> d.resolve("html/_sources/faq"))
                                .filter(Files::isDirectory)
                                .sorted()
                                .reduce((a, b) -> b) // the newest Python's
                                .orElse(null);
            }
        }
        if (faq == null) {
            missing("python-faq", "python3-doc", doc.resolve("python3.*/html/_sources/faq"));
            return null;
        }
        List<FaqCorpus.Page> pages = new ArrayList<>();
        for (Path f : sorted(faq, "*.rst.txt")) {
            FaqCorpus.Page page = RstFaqPage.read(f);
            if (page.sections().size() >= 2) { // one section alone is no search
                pages.add(page);
            }
        }
        return new FaqCorpus(
                "python-faq",
                "python3-doc: " + root.relativize(faq).toString().replace('\\', '/') + "/*.rst.txt",
                pages);
    }

    private ClassificationCorpus missing(String corpus, String pkg, Path looked) {
        missing.add(
                corpus
                        + ": not found at /"
                        + root.relativize(looked)
                        + "; install the Debian package "
                        + pkg
                        + " ("
                        + APT_GET
                        + ")");
        return null;
    }

    private static List<Path> sorted(Path dir, String glob) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, glob)) {
            files.forEach(out::add);
        }
        out.sort(null);
        return out;
    }
}
