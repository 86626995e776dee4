package io.zerolayer.bench;

import io.zerolayer.operators.eval.LabelledPrompts;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The benchmark's request streams, generated from a seed so every system sees the same requests in
 * the same order. Sentences come from small phrase banks, each made unique by a reference number of
 * its own, so text repeats only where a workload says it does — as it does in real traffic, and as
 * an embedding cache would exploit:
 *
 * <ul>
 *   <li>{@link #CUSTOMER_SERVICE}: a customer's question answered from the FAQ of the product it is
 *       about, one of {@value #FAQS} FAQs of 1–2 KB: the FAQ repeats, the question never does. One
 *       structure carries 99% of the requests; the rest are unique reviews to embed and questions
 *       about notes.
 *   <li>{@link #UNIQUE}: short support tickets triaged into five labels, no text repeated but the
 *       labels: the control, which a cache can only slow down.
 *   <li>{@link #LONG_PAPERS}: scientific papers of 8–14 sections (about 10–25 KB) to summarize; no
 *       text repeated.
 *   <li>{@link #CONTRACT_REVIEW}: contracts of 3–8 KB, fields extracted or a question answered, in
 *       strict compliance mode (redaction and audit on, each request run alone); their last
 *       sections (termination, liability, confidentiality, general) are one standard boilerplate,
 *       the others unique.
 *   <li>{@link #MIXED}: 70% customer service, 15% contracts, 5% papers, 10% other short tasks.
 *   <li>{@link #LABELLED}: the labelled public corpora of {@code zerolayer eval} (Reuters-21578
 *       topics, fortunes, Python FAQ questions over their page) in a seeded order, each request
 *       with its right answer, so each system's accuracy is measured beside its speed. Read from
 *       the Debian packages ({@link EvalCorpora}); absent without them.
 * </ul>
 */
public enum Workload {
    CUSTOMER_SERVICE("customer-service"),
    UNIQUE("unique"),
    LONG_PAPERS("papers"),
    CONTRACT_REVIEW("contracts"),
    MIXED("mixed"),
    LABELLED("labelled");

    private final String id;

    Workload(String id) {
        this.id = id;
    }

    /** The name used on the command line and in results. */
    public String id() {
        return id;
    }

    public static Workload byId(String id) {
        for (Workload w : values()) {
            if (w.id.equals(id)) {
                return w;
            }
        }
        throw new IllegalArgumentException(
                "Unknown workload '"
                        + id
                        + "'; use customer-service, unique, papers, contracts, mixed or labelled");
    }

    /**
     * One request of a stream: its id, prompt and request attributes, and its kind ({@code ticket},
     * {@code short}, {@code contract}, {@code paper}, {@code document}, {@code classify} or {@code
     * answer}) for latency by kind; a labelled request carries its right answer ({@code expected}),
     * others null.
     */
    public record Request(
            String id,
            String prompt,
            Map<String, String> attributes,
            String kind,
            LabelledPrompts.LabelledPrompt expected) {
        public Request(String id, String prompt, Map<String, String> attributes, String kind) {
            this(id, prompt, attributes, kind, null);
        }
    }

    /**
     * What the labelled stream lacks on this machine (each missing corpus with the package that
     * installs it); empty when it can run.
     */
    public static List<String> labelledMissing() {
        return LabelledStream.missing();
    }

    /** An endless, deterministic stream of this workload's requests. */
    public Stream stream(long seed) {
        return new Stream(this, seed);
    }

    /** The first {@code count} requests of {@link #stream(long)}. */
    public List<Request> take(long seed, int count) {
        Stream s = stream(seed);
        List<Request> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(s.next());
        }
        return out;
    }

    /** Product FAQs the customer-service tickets carry. */
    public static final int FAQS = 8;

    /** Generates one workload's requests in order; ids are {@code <workload>-<n>}. */
    public static final class Stream {
        private final Workload workload;
        private final SplittableRandom random;
        private final String[] faqs;
        private final String boilerplate;
        private long n;

        /** The next reference number: unique within the stream, so a sentence never repeats. */
        private long ref;

        Stream(Workload workload, long seed) {
            this.workload = workload;
            this.random = new SplittableRandom(seed * 31 + workload.ordinal());
            // the repeated texts depend on the seed alone, not on the workload or the position
            SplittableRandom shared = new SplittableRandom(seed * 7 + 3);
            this.ref = 100_000 + random.nextInt(800_000);
            this.faqs = new String[FAQS];
            for (int k = 0; k < FAQS; k++) {
                faqs[k] = faq(k, shared);
            }
            this.boilerplate = boilerplate(shared);
        }

        /** The labelled stream's order: each pass over the corpora shuffled by the seed. */
        private int[] labelledOrder;

        public Request next() {
            String id = workload.id + "-" + n++;
            if (workload == LABELLED) {
                return labelled(id);
            }
            return switch (workload) {
                case CUSTOMER_SERVICE -> customerService(id);
                case UNIQUE -> triage(id);
                case LONG_PAPERS -> paper(id);
                case CONTRACT_REVIEW -> contract(id);
                case MIXED -> mixed(id);
                case LABELLED -> throw new IllegalStateException("handled above");
            };
        }

        private Request labelled(String id) {
            List<LabelledPrompts.LabelledPrompt> all = LabelledStream.prompts();
            int k = (int) ((n - 1) % all.size());
            if (labelledOrder == null || k == 0) {
                labelledOrder = new int[all.size()];
                for (int i = 0; i < labelledOrder.length; i++) {
                    labelledOrder[i] = i;
                }
                for (int i = labelledOrder.length - 1; i > 0; i--) { // Fisher–Yates
                    int j = random.nextInt(i + 1);
                    int t = labelledOrder[i];
                    labelledOrder[i] = labelledOrder[j];
                    labelledOrder[j] = t;
                }
            }
            LabelledPrompts.LabelledPrompt p = all.get(labelledOrder[k]);
            return new Request(id, p.prompt(), Map.of(), p.task(), p);
        }

        private Request mixed(String id) {
            int roll = random.nextInt(100);
            if (roll < 70) {
                return customerService(id);
            }
            if (roll < 85) {
                return contract(id);
            }
            if (roll < 90) {
                return paper(id);
            }
            return otherShortTask(id);
        }

        /** A customer's question (unique) and the FAQ of its product (one of {@link #FAQS}). */
        private Request customerService(String id) {
            if (random.nextInt(100) == 0) {
                return otherShortTask(id);
            }
            int product = random.nextInt(FAQS);
            return new Request(
                    id,
                    "<task:answer><output_format:json>\n<question>"
                            + unique(
                                    PhraseBanks.QUESTIONS[
                                            random.nextInt(PhraseBanks.QUESTIONS.length)])
                            + "</question>\n<document format=\"text\" title=\""
                            + PhraseBanks.PRODUCTS[product]
                            + " FAQ\">\n"
                            + faqs[product]
                            + "\n</document>",
                    Map.of(),
                    "ticket");
        }

        /** A short ticket triaged into five labels, every sentence of it unique. */
        private Request triage(String id) {
            if (random.nextInt(100) == 0) {
                return otherShortTask(id);
            }
            // 260–500 characters: one size bucket, so one structure
            String ticket = text(PhraseBanks.TICKET, 260, 500);
            return new Request(
                    id,
                    "<task:triage><output_format:json>\n<labels>"
                            + PhraseBanks.TRIAGE_LABELS
                            + "</labels>\n<ticket channel=\""
                            + PhraseBanks.CHANNELS[random.nextInt(PhraseBanks.CHANNELS.length)]
                            + "\">\n"
                            + ticket
                            + "\n</ticket>",
                    Map.of(),
                    "ticket");
        }

        /** FAQ {@code k}: 1 100–2 000 characters about its product, the same in every request. */
        private static String faq(int k, SplittableRandom shared) {
            StringBuilder sb = new StringBuilder();
            int target = 1_100 + shared.nextInt(900);
            while (sb.length() < target) {
                String next =
                        tagged(
                                PhraseBanks.FAQ[shared.nextInt(PhraseBanks.FAQ.length)].replace(
                                        "{product}", PhraseBanks.PRODUCTS[k]),
                                "see section " + (1 + sb.length() / 100));
                if (sb.length() + 1 + next.length() > 2_000) {
                    break;
                }
                sb.append(sb.length() == 0 ? "" : " ").append(next);
            }
            return sb.toString();
        }

        /** The standard clauses every contract ends with. */
        private static String[] standardClauses(SplittableRandom shared) {
            String[] sections = new String[STANDARD_SECTIONS];
            for (int s = 0; s < STANDARD_SECTIONS; s++) {
                StringBuilder sb = new StringBuilder();
                int target = 600 + shared.nextInt(600);
                int clause = 1;
                while (sb.length() < target) {
                    String next =
                            tagged(
                                    PhraseBanks.CONTRACT[
                                            shared.nextInt(PhraseBanks.CONTRACT.length)],
                                    "clause " + (s + 9) + "." + clause++);
                    sb.append(sb.length() == 0 ? "" : " ").append(next);
                }
                sections[s] = sb.toString();
            }
            return sections;
        }

        private static String boilerplate(SplittableRandom shared) {
            return String.join("\u0000", standardClauses(shared));
        }

        private Request otherShortTask(String id) {
            return switch (random.nextInt(3)) {
                case 0 ->
                        new Request(
                                id,
                                "<task:embed><output_format:json>\n<review rating=\""
                                        + (1 + random.nextInt(5))
                                        + "\">"
                                        + text(PhraseBanks.TICKET, 150, 600)
                                        + "</review>",
                                Map.of(),
                                "short");
                case 1 ->
                        new Request(
                                id,
                                "<task:answer><output_format:text>\n<question>"
                                        + unique(
                                                PhraseBanks.QUESTIONS[
                                                        random.nextInt(
                                                                PhraseBanks.QUESTIONS.length)])
                                        + "</question>\n<note>"
                                        + text(PhraseBanks.TICKET, 400, 1200)
                                        + "</note>",
                                Map.of(),
                                "short");
                default ->
                        new Request(
                                id,
                                "<task:summarize sentences=\"2\"><output_format:text>\n<ticket>"
                                        + text(PhraseBanks.TICKET, 600, 1500)
                                        + "</ticket>",
                                Map.of(),
                                "short");
            };
        }

        private Request paper(String id) {
            StringBuilder p = new StringBuilder();
            p.append(
                            "<task:summarize sentences=\"5\"><output_format:json>\n"
                                    + "<paper doi=\"10.5555/zl.")
                    .append(n)
                    .append("\">\n<title>")
                    .append(text(PhraseBanks.PAPER, 40, 120))
                    .append("</title>\n");
            int sections = 8 + random.nextInt(7);
            for (int s = 0; s < sections; s++) {
                String name =
                        s < PhraseBanks.PAPER_SECTIONS.length
                                ? PhraseBanks.PAPER_SECTIONS[s]
                                : "appendix-" + s;
                p.append("<section:")
                        .append(name)
                        .append('>')
                        .append(text(PhraseBanks.PAPER, 900, 2000))
                        .append("</section>\n");
            }
            return new Request(id, p.append("</paper>").toString(), Map.of(), "paper");
        }

        private Request contract(String id) {
            StringBuilder c = new StringBuilder();
            boolean extract = random.nextBoolean();
            if (extract) {
                c.append("<task:extract><output_format:json>\n<fields>")
                        .append(PhraseBanks.CONTRACT_FIELDS)
                        .append("</fields>\n");
            } else {
                c.append("<task:answer><output_format:json>\n<question>")
                        .append(
                                PhraseBanks.CONTRACT_QUESTIONS[
                                        random.nextInt(PhraseBanks.CONTRACT_QUESTIONS.length)])
                        .append("</question>\n");
            }
            c.append("<contract format=\"text\" id=\"C-").append(n).append("\">\n");
            int sections = 4 + random.nextInt(4);
            String[] standard = boilerplate.split("\u0000");
            for (int s = 0; s < sections; s++) {
                // the first sections are this contract's own; from the fifth on, the standard text
                String body =
                        s < PhraseBanks.CONTRACT_SECTIONS.length - STANDARD_SECTIONS
                                ? text(PhraseBanks.CONTRACT, 600, 1200)
                                : standard[
                                        s
                                                - (PhraseBanks.CONTRACT_SECTIONS.length
                                                        - STANDARD_SECTIONS)];
                c.append("<section:")
                        .append(PhraseBanks.CONTRACT_SECTIONS[s])
                        .append('>')
                        .append(body)
                        .append("</section>\n");
            }
            c.append("</contract>");
            return new Request(id, c.toString(), Map.of("compliance", "strict"), "contract");
        }

        /** {@code sentence} with a reference number of its own before its final stop. */
        /**
         * A ticket's text, 260–500 characters, every sentence of it unique: no prompt around it.
         */
        public String ticketText() {
            return text(PhraseBanks.TICKET, 260, 500);
        }

        private String unique(String sentence) {
            return tagged(sentence, "ref " + ref++);
        }

        /** {@code sentence} with {@code tag} in brackets before its final stop. */
        static String tagged(String sentence, String tag) {
            int end = sentence.length() - 1;
            return sentence.substring(0, end) + " (" + tag + ")" + sentence.substring(end);
        }

        /** Unique sentences from {@code bank} until the text is at least {@code min} characters. */
        private String text(String[] bank, int min, int max) {
            int target = min + random.nextInt(max - min + 1);
            StringBuilder sb = new StringBuilder();
            while (sb.length() < target) {
                String next = unique(bank[random.nextInt(bank.length)]);
                if (sb.length() > 0 && sb.length() + 1 + next.length() > max) {
                    break;
                }
                if (sb.length() > 0) {
                    sb.append(' ');
                }
                sb.append(next);
            }
            return sb.length() > max ? sb.substring(0, max) : sb.toString();
        }
    }

    /**
     * {@code count} documents of about {@code chars} characters each, to summarize: paragraphs of
     * paper sentences in one {@code <document>}, each sentence made unique by a reference number
     * (nothing for a cache to find). For the size-scaling figures; the task is {@value
     * #LARGE_SUMMARY_TASK}, which the benchmark's contracts allow up to {@value
     * #LARGE_SUMMARY_MAX_CHARS} characters.
     */
    public static List<Request> documentsOfSize(int chars, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed * 131 + chars);
        List<Request> out = new ArrayList<>(count);
        long ref = 100_000L * (1 + random.nextInt(9_000));
        for (int i = 0; i < count; i++) {
            StringBuilder doc = new StringBuilder(chars + 256);
            int paragraph = 0;
            while (doc.length() < chars) {
                String s =
                        Stream.tagged(
                                PhraseBanks.PAPER[random.nextInt(PhraseBanks.PAPER.length)],
                                "ref " + ref++);
                doc.append(s);
                doc.append(++paragraph % 6 == 0 ? "\n\n" : " ");
            }
            doc.setLength(chars);
            out.add(
                    new Request(
                            String.format(Locale.ROOT, "size-%d-%d", chars, i),
                            "<task:"
                                    + LARGE_SUMMARY_TASK
                                    + " sentences=\"5\"><output_format:json>\n"
                                    + "<document format=\"text\">"
                                    + doc.toString().strip()
                                    + "</document>",
                            Map.of(),
                            "document"));
        }
        return out;
    }

    /** A summarize task without the built-in 200 000-character limit, for size scaling. */
    public static final String LARGE_SUMMARY_TASK = "summarize-large";

    public static final int LARGE_SUMMARY_MAX_CHARS = 2_000_000;

    /**
     * Contract sections, from the end of {@link PhraseBanks#CONTRACT_SECTIONS}, that are standard
     * text.
     */
    private static final int STANDARD_SECTIONS = 4;
}
