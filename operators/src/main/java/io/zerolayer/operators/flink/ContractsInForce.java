package io.zerolayer.operators.flink;

import io.zerolayer.operators.contracts.ContractException;
import io.zerolayer.operators.contracts.TaskContracts;
import java.io.Serializable;
import java.nio.file.Path;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task contracts an operator checks against, as the control stream changes them: the job's
 * start-up contracts until a {@code reload-contracts} command stores new ones in broadcast state.
 * Each operator instance owns one and rebuilds what depends on the contracts when they change.
 */
final class ContractsInForce implements Serializable {
    private static final Logger LOG = LoggerFactory.getLogger(ContractsInForce.class);

    private final String initialYaml;
    private final String contractsFile;
    private transient String yaml;
    private transient TaskContracts current;

    /**
     * @param contractsFile the configured tasks.yaml that a bare reload re-reads; null for the
     *     built-in contracts
     */
    ContractsInForce(String initialYaml, String contractsFile) {
        this.initialYaml = initialYaml;
        this.contractsFile = contractsFile;
    }

    TaskContracts initial() {
        yaml = initialYaml;
        current = TaskContracts.parse(yaml);
        return current;
    }

    /** The contracts in force. */
    TaskContracts current() {
        return current;
    }

    /** New contracts if broadcast state holds others than those in force, else null. */
    TaskContracts changed(ReadOnlyBroadcastState<String, String> state) throws Exception {
        String stored = state.get(ControlCommand.CONTRACTS_KEY);
        if (stored == null || stored == yaml || stored.equals(yaml)) {
            return null;
        }
        yaml = stored;
        current = TaskContracts.parse(stored);
        return current;
    }

    /**
     * Applies a reload: parses the new contracts and stores them in broadcast state. A tasks.yaml
     * that cannot be read or used, for whatever reason (bad YAML, a non-string key, a missing file,
     * a wrong example), is logged and ignored: the contracts in force stay.
     */
    TaskContracts reload(ControlCommand command, BroadcastState<String, String> state)
            throws Exception {
        String text;
        try {
            text =
                    command.contracts != null
                            ? command.contracts
                            : contractsFile != null
                                    ? TaskContracts.load(Path.of(contractsFile)).source()
                                    : TaskContracts.builtIn().source();
            TaskContracts parsed = TaskContracts.parse(text);
            // with any examples file read into it, so every operator parses the same examples
            state.put(ControlCommand.CONTRACTS_KEY, parsed.source());
            yaml = parsed.source();
            current = parsed;
            LOG.info(
                    "Task contracts reloaded: now {} with tasks {}",
                    parsed.version(),
                    parsed.taskNames());
            return parsed;
        } catch (ContractException e) {
            LOG.error("reload-contracts ignored, the contracts in force stay: {}", e.getMessage());
            return null;
        } catch (RuntimeException e) {
            LOG.error("reload-contracts ignored, the contracts in force stay", e);
            return null;
        }
    }
}
