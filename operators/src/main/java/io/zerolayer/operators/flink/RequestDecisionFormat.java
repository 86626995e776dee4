package io.zerolayer.operators.flink;

import io.zerolayer.operators.compiler.CompilableStructure;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.compiler.StructureWorkload;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureSignature;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * A {@link RequestDecision} in {@link RoutedRequestSerializer}'s layout: field by field, each text
 * run of its content as a span of the prompt (which the record carries once) instead of a second
 * copy of its text. Reads every layout the serializer still reads.
 */
final class RequestDecisionFormat {
    /** A run whose text is not the prompt's span at its offset (never expected): text follows. */
    private static final int TEXT_FOLLOWS = -1;

    private RequestDecisionFormat() {}

    static void write(RequestDecision d, String prompt, DataOutputView out) throws IOException {
        StringValue.writeString(d.graphId(), out);
        StringValue.writeString(d.structureId(), out);
        StringValue.writeString(d.contractVersion(), out);
        out.writeLong(d.encodeMillisAlone());
        out.writeInt(d.warnings().size());
        for (PromptDiagnostic w : d.warnings()) {
            StringValue.writeString(w.code(), out);
            StringValue.writeString(w.severity(), out);
            out.writeInt(w.line());
            out.writeInt(w.column());
            StringValue.writeString(w.message(), out);
            StringValue.writeString(w.hint(), out);
        }
        CompilableStructure s = d.structure();
        out.writeBoolean(s != null);
        if (s != null) {
            StringValue.writeString(s.signature().canonical(), out);
            StringValue.writeString(s.task(), out);
            StringValue.writeString(s.decoder(), out);
            StringValue.writeString(s.outputFormat(), out);
            StructureWorkload w = s.workload();
            out.writeInt(w.scopeTokens().size());
            for (Map.Entry<String, Double> e : w.scopeTokens().entrySet()) {
                StringValue.writeString(e.getKey(), out);
                out.writeDouble(e.getValue());
            }
            out.writeInt(w.textRuns());
            out.writeInt(w.querySequences());
            StringValue.writeString(w.strategy(), out);
            out.writeByte(s.quality().ordinal());
            out.writeBoolean(s.exact());
        }
        DocumentContent c = d.content();
        out.writeBoolean(c != null);
        if (c != null) {
            out.writeInt(c.scopes().size());
            for (Map.Entry<String, List<DocumentContent.TextRun>> scope : c.scopes().entrySet()) {
                StringValue.writeString(scope.getKey(), out);
                out.writeInt(scope.getValue().size());
                for (DocumentContent.TextRun run : scope.getValue()) {
                    String text = run.text();
                    boolean span = prompt.startsWith(text, run.offset());
                    out.writeInt(span ? run.offset() : TEXT_FOLLOWS);
                    if (span) {
                        out.writeInt(text.length());
                    } else {
                        out.writeInt(run.offset());
                        StringValue.writeString(text, out);
                    }
                    out.writeInt(run.sizeBucket());
                }
            }
            StringValue.writeString(c.question(), out);
            writeStrings(c.labels(), out);
            writeStrings(c.fields(), out);
            out.writeInt(c.taskAttributes().size());
            for (Map.Entry<String, String> a : c.taskAttributes().entrySet()) {
                StringValue.writeString(a.getKey(), out);
                StringValue.writeString(a.getValue(), out);
            }
        }
        out.writeBoolean(d.part() != null);
        if (d.part() != null) {
            out.writeInt(d.part().index());
            out.writeInt(d.part().count());
        }
    }

    private static void writeStrings(List<String> strings, DataOutputView out) throws IOException {
        out.writeInt(strings.size());
        for (String s : strings) {
            StringValue.writeString(s, out);
        }
    }

    static RequestDecision read(String prompt, int readLayout, DataInputView in)
            throws IOException {
        String graphId = StringValue.readString(in);
        String structureId =
                readLayout == RoutedRequestSerializer.STRUCTURE_KEYED_LAYOUT
                        ? graphId
                        : StringValue.readString(in);
        String contractVersion = StringValue.readString(in);
        long encodeMillis = in.readLong();
        int warningCount = in.readInt();
        List<PromptDiagnostic> warnings = new ArrayList<>(warningCount);
        for (int i = 0; i < warningCount; i++) {
            warnings.add(
                    new PromptDiagnostic(
                            StringValue.readString(in),
                            StringValue.readString(in),
                            in.readInt(),
                            in.readInt(),
                            StringValue.readString(in),
                            StringValue.readString(in)));
        }
        CompilableStructure structure = in.readBoolean() ? readStructure(readLayout, in) : null;
        DocumentContent content = in.readBoolean() ? readContent(prompt, in) : null;
        RequestDecision.Part part = null;
        if (readLayout >= RoutedRequestSerializer.PARTS_LAYOUT && in.readBoolean()) {
            part = new RequestDecision.Part(in.readInt(), in.readInt());
        }
        return new RequestDecision(
                graphId,
                structureId,
                contractVersion,
                structure,
                content,
                warnings,
                encodeMillis,
                part);
    }

    /** A structure as {@link #write} wrote it, in {@code readLayout}. */
    private static CompilableStructure readStructure(int readLayout, DataInputView in)
            throws IOException {
        StructureSignature signature = new StructureSignature(StringValue.readString(in));
        String task = StringValue.readString(in);
        String decoder = StringValue.readString(in);
        String outputFormat = StringValue.readString(in);
        int scopes = in.readInt();
        Map<String, Double> scopeTokens = new LinkedHashMap<>();
        for (int i = 0; i < scopes; i++) {
            scopeTokens.put(StringValue.readString(in), in.readDouble());
        }
        StructureWorkload workload =
                new StructureWorkload(
                        scopeTokens, in.readInt(), in.readInt(), StringValue.readString(in));
        // before layout 6 a structure had no floor of its own: the contracts' default
        QualityFloor quality =
                readLayout >= RoutedRequestSerializer.TIERS_LAYOUT
                        ? QualityFloor.values()[in.readByte()]
                        : QualityFloor.BALANCED;
        boolean exact = readLayout >= RoutedRequestSerializer.TIERS_LAYOUT && in.readBoolean();
        return new CompilableStructure(
                signature, task, decoder, outputFormat, workload, quality, exact);
    }

    /** A request's content, each text run read back as its span of the prompt. */
    private static DocumentContent readContent(String prompt, DataInputView in) throws IOException {
        int scopeCount = in.readInt();
        Map<String, List<DocumentContent.TextRun>> scopes = new LinkedHashMap<>();
        for (int i = 0; i < scopeCount; i++) {
            String scope = StringValue.readString(in);
            int runCount = in.readInt();
            List<DocumentContent.TextRun> runs = new ArrayList<>(runCount);
            for (int j = 0; j < runCount; j++) {
                int offset = in.readInt();
                String text;
                if (offset == TEXT_FOLLOWS) {
                    offset = in.readInt();
                    text = StringValue.readString(in);
                } else {
                    text = prompt.substring(offset, offset + in.readInt());
                }
                runs.add(new DocumentContent.TextRun(text, offset, in.readInt()));
            }
            scopes.put(scope, runs);
        }
        String question = StringValue.readString(in);
        List<String> labels = readStrings(in);
        List<String> fields = readStrings(in);
        int attributeCount = in.readInt();
        Map<String, String> attributes = new LinkedHashMap<>();
        for (int i = 0; i < attributeCount; i++) {
            attributes.put(StringValue.readString(in), StringValue.readString(in));
        }
        return new DocumentContent(scopes, question, labels, fields, attributes);
    }

    private static List<String> readStrings(DataInputView in) throws IOException {
        int n = in.readInt();
        List<String> strings = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            strings.add(StringValue.readString(in));
        }
        return strings;
    }
}
