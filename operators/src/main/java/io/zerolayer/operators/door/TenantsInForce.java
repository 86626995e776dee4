package io.zerolayer.operators.door;

import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.operators.tenants.TenantRegistryException;
import java.io.Serializable;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tenant registry an operator verifies against: read from the tenants file when the operator
 * opens and again on each {@code reload-tenants} command. Unlike the contracts, it is never kept in
 * state or sent over the control topic, so keys stay in the file (a Kubernetes Secret) and out of
 * checkpoints and Kafka; a restarted task reads the file as it is then.
 */
public final class TenantsInForce implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(TenantsInForce.class);

    private final String file;
    private final String inlineYaml;
    private transient TenantRegistry current;

    /**
     * @param file the tenants file, or null to use {@code inlineYaml}
     * @param inlineYaml a registry of the job's own making (analyze's one-run tenant), or null
     */
    public TenantsInForce(String file, String inlineYaml) {
        if ((file == null) == (inlineYaml == null)) {
            throw new IllegalArgumentException("Give a tenants file or an inline registry");
        }
        this.file = file;
        this.inlineYaml = inlineYaml;
    }

    /**
     * Reads the registry when the operator opens.
     *
     * @throws TenantRegistryException when the file cannot be used: the task fails and says why
     */
    public TenantRegistry open() {
        current = read();
        LOG.info("Verifying requests against {}", current);
        return current;
    }

    public TenantRegistry current() {
        return current;
    }

    /**
     * Re-reads the file. One that cannot be read or used is logged and ignored: the registry in
     * force stays.
     *
     * @return whether the file was read and is now in force, changed or not
     */
    public boolean reload() {
        try {
            TenantRegistry reloaded = read();
            boolean changed = !reloaded.digest().equals(current.digest());
            current = reloaded;
            LOG.info("Tenants reloaded{}: {}", changed ? "" : " (unchanged)", reloaded);
            return true;
        } catch (TenantRegistryException e) {
            LOG.error("reload-tenants ignored, the tenants in force stay: {}", e.getMessage());
            return false;
        } catch (RuntimeException e) {
            LOG.error("reload-tenants ignored, the tenants in force stay", e);
            return false;
        }
    }

    private TenantRegistry read() {
        return file != null
                ? TenantRegistry.load(Path.of(file))
                : TenantRegistry.parse(inlineYaml, "the job's own tenant");
    }
}
