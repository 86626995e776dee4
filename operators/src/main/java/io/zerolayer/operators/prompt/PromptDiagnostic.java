package io.zerolayer.operators.prompt;

import io.zerolayer.schemas.Diagnostic;

/**
 * A compiler-style finding about a prompt: a stable code, a position, a message and, where one
 * helps, a hint saying how to fix it.
 */
public record PromptDiagnostic(
        String code, String severity, int line, int column, String message, String hint) {

    public static PromptDiagnostic error(
            String code, int line, int column, String message, String hint) {
        return new PromptDiagnostic(code, "error", line, column, message, hint);
    }

    public boolean isError() {
        return "error".equals(severity);
    }

    /** The same problem as a warning: reported with an answer that was served anyway. */
    public PromptDiagnostic asWarning() {
        return new PromptDiagnostic(code, "warning", line, column, message, hint);
    }

    public Diagnostic toAvro() {
        return new Diagnostic(code, severity, line, column, message, hint);
    }

    @Override
    public String toString() {
        return line
                + ":"
                + column
                + ": "
                + severity
                + "["
                + code
                + "]: "
                + message
                + (hint == null ? "" : " (" + hint + ")");
    }
}
