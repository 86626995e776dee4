package io.zerolayer.operators.flink.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.Document;
import io.zerolayer.operators.documents.DocumentAttributes;
import io.zerolayer.operators.documents.DocumentFile;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.documents.DocumentParts;
import io.zerolayer.operators.documents.DocumentReaders;
import io.zerolayer.operators.documents.UnreadableDocumentException;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.replies.AnalysisEvent;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.Sha256;
import io.zerolayer.schemas.auth.TenantCredentials;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Turns a file into the requests the streaming job would get for it: a document (txt, md, html,
 * pdf) becomes one prompt of the analysis task — or, when longer than {@code partChars}, one per
 * part ({@link DocumentParts}); a JSON-lines file one request a line; a prompt file one request.
 * Requests leave as {@link RawRecord}s in Avro single-object encoding, so the same decode and
 * classify operator reads them as it reads Kafka. A file or line that cannot be read leaves on
 * {@link #ERRORS} naming it and why; units already done (--resume) are skipped.
 */
public class DocumentRequests extends ProcessFunction<DocumentFile, RawRecord> {
    public static final OutputTag<AnalysisEvent> ERRORS = new OutputTag<>("unreadable") {};

    private static final ObjectMapper JSON = new ObjectMapper();

    private final AnalysisTask task;
    private final int partChars;
    private final String tenant;
    private final String baseDir;
    private final Set<String> done;

    private transient SingleObjectCodec<AnalysisRequest> codec;

    /** The tenants file to sign from, or null. */
    private String tenantsFile;

    /** A registry of the run's own making to sign from, or null. */
    private String tenantsYaml;

    private transient TenantCredentials credentials;

    /**
     * @param baseDir paths under it are reported relative to it (the client's working folder)
     * @param done {@link DocumentAttributes#unitKey}s of units a previous run answered
     */
    public DocumentRequests(
            AnalysisTask task, int partChars, String tenant, String baseDir, Set<String> done) {
        this.task = task;
        this.partChars = partChars;
        this.tenant = tenant;
        this.baseDir = baseDir;
        this.done = Set.copyOf(done);
    }

    /**
     * Signs every request with the tenant's first key in the tenants file ({@code file}) or in a
     * registry of the run's own making ({@code yaml}), so the job verifies them as it verifies
     * Kafka's.
     */
    public DocumentRequests signedFrom(String file, String yaml) {
        this.tenantsFile = file;
        this.tenantsYaml = yaml;
        return this;
    }

    @Override
    public void open(OpenContext context) {
        codec = SingleObjectCodec.of(AnalysisRequest.class);
        if (tenantsFile != null) {
            credentials = TenantRegistry.load(Path.of(tenantsFile)).credentials(tenant);
        } else if (tenantsYaml != null) {
            credentials = TenantRegistry.parse(tenantsYaml, "the run's tenant").credentials(tenant);
        }
    }

    @Override
    public void processElement(DocumentFile file, Context ctx, Collector<RawRecord> out) {
        String path = displayPath(file.uri, baseDir);
        DocumentFormat format = DocumentFormat.of(path).orElse(null);
        String formatName = format == null ? null : format.shortName();
        if (file.unreadable != null) {
            ctx.output(ERRORS, AnalysisEvent.error(path, 0, null, formatName, file.unreadable));
            return;
        }
        String sha = Sha256.hex(file.bytes);
        if (format == null) {
            ctx.output(
                    ERRORS,
                    AnalysisEvent.error(
                            path,
                            0,
                            sha,
                            null,
                            "unsupported file type; analyze reads " + DocumentFormat.extensions()));
            return;
        }
        try {
            switch (format) {
                case JSONL -> jsonLines(path, sha, file.bytes, ctx, out);
                case PROMPT -> {
                    if (!done.contains(DocumentAttributes.unitKey(path, sha, 0))) {
                        String prompt = DocumentReaders.utf8(file.bytes);
                        emit(
                                out,
                                path,
                                sha,
                                format,
                                0,
                                null,
                                task.promptForPrompt(prompt),
                                0,
                                1,
                                null,
                                prompt.length());
                    }
                }
                default -> document(path, sha, format, file.bytes, out);
            }
        } catch (UnreadableDocumentException e) {
            ctx.output(ERRORS, AnalysisEvent.error(path, 0, sha, formatName, e.getMessage()));
        } catch (RuntimeException e) {
            // a reader's bug on one odd file must not end the run: the file gets an error row
            ctx.output(
                    ERRORS,
                    AnalysisEvent.error(path, 0, sha, formatName, "cannot read the file: " + e));
        }
    }

    private void document(
            String path, String sha, DocumentFormat format, byte[] bytes, Collector<RawRecord> out)
            throws UnreadableDocumentException {
        if (done.contains(DocumentAttributes.unitKey(path, sha, 0))) {
            return;
        }
        Document doc = DocumentReaders.read(format, bytes, path);
        List<Document> parts = DocumentParts.split(doc, partChars);
        // parts are combined from their JSON results, whatever format the row is written in
        AnalysisTask partTask = parts.size() == 1 ? task : task.asJson();
        for (int i = 0; i < parts.size(); i++) {
            emit(
                    out,
                    path,
                    sha,
                    format,
                    0,
                    null,
                    partTask.promptFor(parts.get(i), format),
                    i,
                    parts.size(),
                    doc.title(),
                    doc.chars());
        }
    }

    private void jsonLines(
            String path, String sha, byte[] bytes, Context ctx, Collector<RawRecord> out)
            throws UnreadableDocumentException {
        String[] lines = DocumentReaders.utf8(bytes).split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int line = i + 1;
            if (lines[i].isBlank() || done.contains(DocumentAttributes.unitKey(path, sha, line))) {
                continue;
            }
            String prompt;
            String id = null;
            try {
                JsonNode n = JSON.readTree(lines[i]);
                if (n.isTextual()) {
                    prompt = n.asText();
                } else if (n.path("prompt").isTextual()) {
                    prompt = n.path("prompt").asText();
                    id = n.path("id").isValueNode() ? n.path("id").asText() : null;
                } else {
                    throw new IllegalArgumentException(
                            "a line must be a JSON string or an object with a \"prompt\" string");
                }
            } catch (Exception e) {
                ctx.output(
                        ERRORS,
                        AnalysisEvent.error(
                                path, line, sha, "jsonl", "line " + line + ": " + message(e)));
                continue;
            }
            emit(
                    out,
                    path,
                    sha,
                    DocumentFormat.JSONL,
                    line,
                    id,
                    task.promptForPrompt(prompt),
                    0,
                    1,
                    null,
                    prompt.length());
        }
    }

    private static String message(Exception e) {
        String m = e.getMessage();
        int cut = m == null ? -1 : m.indexOf("\n at [Source");
        return m == null ? e.toString() : cut > 0 ? m.substring(0, cut) : m;
    }

    private void emit(
            Collector<RawRecord> out,
            String path,
            String sha,
            DocumentFormat format,
            int line,
            String id,
            String prompt,
            int part,
            int parts,
            String title,
            long chars) {
        Map<String, String> attributes = new TreeMap<>();
        attributes.put(DocumentAttributes.PATH, path);
        attributes.put(DocumentAttributes.SHA256, sha);
        attributes.put(DocumentAttributes.FORMAT, format.shortName());
        attributes.put(DocumentAttributes.PART, String.valueOf(part));
        attributes.put(DocumentAttributes.PARTS, String.valueOf(parts));
        attributes.put(DocumentAttributes.CHARS, String.valueOf(chars));
        if (line > 0) {
            attributes.put(DocumentAttributes.LINE, String.valueOf(line));
        }
        if (title != null) {
            attributes.put(DocumentAttributes.TITLE, title);
        }
        if (task.quality() != null) {
            // the request attribute the job reads a Kafka request's floor from
            attributes.put("quality", task.quality());
        }
        AnalysisRequest request =
                AnalysisRequest.newBuilder()
                        .setRequestId(requestId(path, sha, line, id, part, parts))
                        .setTenantId(tenant)
                        .setPrompt(prompt)
                        .setSubmittedAt(Instant.now())
                        .setAttributes(attributes)
                        .build();
        RawRecord raw = new RawRecord();
        raw.topic = "file:" + path;
        raw.offset = line;
        raw.timestamp = request.getSubmittedAt().toEpochMilli();
        raw.key = request.getRequestId().getBytes(StandardCharsets.UTF_8);
        raw.value = codec.encode(request);
        if (credentials != null) {
            RecordHeaders headers = new RecordHeaders();
            credentials.sign(headers, request.getRequestId(), raw.value);
            raw.setHeaders(headers.toArray());
        }
        out.collect(raw);
    }

    /**
     * A stable request id: the same file content at the same path always gets the same id, so its
     * cost records keep their ids across runs (a replay overwrites, never double-bills).
     */
    static String requestId(String path, String sha, int line, String id, int part, int parts) {
        String base =
                id != null ? id : path + "@" + sha.substring(0, 12) + (line > 0 ? "#" + line : "");
        return parts > 1 ? base + "/part-" + (part + 1) + "-of-" + parts : base;
    }

    /** A file URI as rows name it ({@link DocumentAttributes#displayPath}). */
    static String displayPath(String uri, String baseDir) {
        try {
            return DocumentAttributes.displayPath(
                    Path.of(URI.create(uri)), baseDir == null ? null : Path.of(baseDir));
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return uri; // not a local file: name it as the source did
        }
    }
}
