package io.zerolayer.operators.documents;

/**
 * Request attributes a batch analysis sets on each request it makes from a file, so the response
 * (which carries them back) says which file, line and part it answers.
 */
public final class DocumentAttributes {
    public static final String PATH = "zerolayer.path";
    public static final String SHA256 = "zerolayer.sha256";
    public static final String FORMAT = "zerolayer.format";

    /** 1-based line of a JSON-lines prompt; absent for other files. */
    public static final String LINE = "zerolayer.line";

    /** 0-based index of this part, and how many parts the document was split into. */
    public static final String PART = "zerolayer.part";

    public static final String PARTS = "zerolayer.parts";
    public static final String TITLE = "zerolayer.title";

    /** Characters of document text (all parts). */
    public static final String CHARS = "zerolayer.chars";

    private DocumentAttributes() {}

    /**
     * How rows name a file: relative to {@code baseDir} (the client's working folder) when under
     * it, else absolute. The client (hashing, --resume) and the job (rows) must agree, so both call
     * this.
     */
    public static String displayPath(java.nio.file.Path file, java.nio.file.Path baseDir) {
        java.nio.file.Path p = file.toAbsolutePath().normalize();
        if (baseDir != null) {
            java.nio.file.Path base = baseDir.toAbsolutePath().normalize();
            if (p.startsWith(base)) {
                return base.relativize(p).toString();
            }
        }
        return p.toString();
    }

    /** The key a batch input is known by for --resume: path, content hash and line. */
    public static String unitKey(String path, String sha256, int line) {
        return path + "\n" + sha256 + "\n" + line;
    }
}
