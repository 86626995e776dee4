package io.zerolayer.operators.routing;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.door.TenantsInForce;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.schemas.AnalysisRequest;
import java.util.Map;

/**
 * How a tenant's request is routed, from the tenant registry in force, the job's settings and the
 * request's own attributes: its compliance level, the quality floor its tier is chosen for, and
 * whether a prompt of abnormal structure is served by the SAFE graph.
 */
public final class TenantRouting {
    private final TenantsInForce tenants;
    private final ExecutionSettings compliance;
    private final SafeModePolicy safeMode;

    /**
     * @param tenants the registry in force, or null without one
     * @param compliance the job's compliance settings, or null: every request is standard
     * @param safeMode the job's safe-mode policy, where the registry names none for a tenant
     */
    public TenantRouting(
            TenantsInForce tenants, ExecutionSettings compliance, SafeModePolicy safeMode) {
        this.tenants = tenants;
        this.compliance = compliance;
        this.safeMode = safeMode;
    }

    /**
     * The request's compliance level: its tenant's (the registry's, else the settings'), raised by
     * its {@code compliance} attribute; standard where no settings were given.
     */
    public ComplianceMode complianceOf(AnalysisRequest request) {
        if (compliance == null) {
            return ComplianceMode.STANDARD;
        }
        return compliance.complianceOf(
                request.getTenantId(),
                request.getAttributes(),
                tenants == null ? null : tenants.current().compliance(request.getTenantId()));
    }

    /** Whether the request is strict (level 3): it runs whole and alone, one audit entry each. */
    public boolean strict(AnalysisRequest request) {
        return complianceOf(request) == ComplianceMode.STRICT;
    }

    /**
     * The floor a request runs at: its {@code quality} attribute's, else its task's ({@code task}),
     * never below its tenant's (the registry's). An attribute naming no floor is ignored, as
     * attributes never fail a request.
     */
    public QualityFloor qualityFloor(AnalysisRequest request, QualityFloor task) {
        QualityFloor tenant =
                tenants == null ? null : tenants.current().quality(request.getTenantId());
        Map<String, String> attributes = request.getAttributes();
        QualityFloor asked =
                QualityFloor.named(attributes == null ? null : attributes.get("quality"));
        return QualityFloor.max(tenant, asked != null ? asked : task);
    }

    /**
     * What the classifier decides of a request: its graph and tier (its quality floor, exact at
     * level 3), or the SAFE graph for a prompt of abnormal structure whose tenant degrades (texts
     * of at most {@code safeModeMaxChars}); null when it is rejected.
     */
    public RequestDecision decide(
            AnalysisRequest request,
            ClassifiedPrompt classified,
            GraphCompiler compiler,
            int safeModeMaxChars) {
        if (classified.compiles()) {
            return RequestDecision.of(
                    classified,
                    compiler,
                    qualityFloor(request, classified.contract().quality()),
                    strict(request));
        }
        if (classified.abnormal() && degrades(request.getTenantId())) {
            return RequestDecision.safe(classified, compiler, safeModeMaxChars);
        }
        return null;
    }

    /**
     * Whether a tenant's prompts of abnormal structure are served by the SAFE graph: the tenant
     * registry's {@code safe-mode} for it, else the settings'.
     */
    public boolean degrades(String tenant) {
        SafeModePolicy.Policy registered =
                tenants == null ? null : tenants.current().safeMode(tenant);
        return registered != null
                ? registered == SafeModePolicy.Policy.DEGRADE
                : safeMode.degrades(tenant);
    }
}
