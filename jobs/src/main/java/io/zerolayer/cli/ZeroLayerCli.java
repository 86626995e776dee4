package io.zerolayer.cli;

import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code zerolayer}: the command line of ZeroLayer. */
@Command(
        name = "zerolayer",
        mixinStandardHelpOptions = true,
        version = "zerolayer 0.1.0",
        description = "Streaming document analysis with compile-time static execution graphs.",
        subcommands = {
            DemoCommand.class,
            ServeCommand.class,
            BrokerCommand.class,
            ClusterCommand.class,
            RunCommand.class,
            SubmitCommand.class,
            AnalyzeCommand.class,
            CheckCommand.class,
            HardwareCommand.class,
            InspectCommand.class,
            StatusCommand.class,
            CalibrateCommand.class,
            DeviceCheckCommand.class,
            CostsCommand.class,
            AuditCommand.class,
            TenantsCommand.class,
            TopicsCommand.class,
            ConfigCommand.class,
            EvalCommand.class,
            BenchCommand.class
        })
public final class ZeroLayerCli implements Runnable {

    /**
     * Runs a command and exits with its code, except inside a Flink cluster ({@code flink run}, a
     * job submitted through the REST API or the Web UI, application mode), where {@code main} runs
     * in the client or the JobManager's JVM: exiting there would shut the JobManager down, so a
     * success returns and a failure throws.
     */
    public static void main(String[] args) {
        int code = commandLine().execute(args);
        if (!insideFlink()) {
            System.exit(code);
        }
        if (code != 0) {
            throw new IllegalStateException(
                    "zerolayer " + String.join(" ", args) + " failed with exit code " + code);
        }
    }

    /**
     * Whether this JVM runs the program for a Flink cluster: there the execution environment is the
     * cluster's context environment, elsewhere a local one (created, not started, here).
     */
    static boolean insideFlink() {
        return !(StreamExecutionEnvironment.getExecutionEnvironment()
                instanceof LocalStreamEnvironment);
    }

    /**
     * The command line with ZeroLayer's error handling: a mistake a user can fix (a bad option
     * value, an unknown profile, a broken tasks.yaml) prints its message and exits 2, without a
     * stack trace.
     */
    public static CommandLine commandLine() {
        return new CommandLine(new ZeroLayerCli())
                .setExecutionExceptionHandler(
                        (e, cmd, parsed) -> {
                            if (e instanceof IllegalArgumentException) {
                                cmd.getErr()
                                        .println(
                                                "zerolayer "
                                                        + cmd.getCommandName()
                                                        + ": "
                                                        + e.getMessage());
                                return 2;
                            }
                            throw e;
                        });
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
