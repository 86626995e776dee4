package io.zerolayer.cli;

import io.zerolayer.gpu.hardware.DeviceReport;
import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfile;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer hardware}: what this machine is detected as, and the profile graphs compile for.
 */
@Command(
        name = "hardware",
        mixinStandardHelpOptions = true,
        description =
                "Show the detected devices and the hardware profile compiled graphs are specific"
                        + " to.")
final class HardwareCommand implements Callable<Integer> {
    @Option(
            names = "--hardware-profile",
            defaultValue = "auto",
            description = "auto, or a profile id to show. Default: ${DEFAULT-VALUE}.")
    String setting;

    @Override
    public Integer call() {
        HardwareProfiles profiles = HardwareProfiles.builtIn();
        HardwareFingerprint hw = HardwareFingerprint.resolve(setting, profiles);
        HardwareProfile p = hw.profile();
        System.out.println("devices:");
        for (DeviceReport d : hw.devices()) {
            System.out.println("  " + d.summary());
        }
        System.out.printf(
                Locale.ROOT,
                "profile: %s (%s)%n",
                p.id(),
                hw.detected() ? "detected" : "configured");
        System.out.println("  source: " + p.source());
        for (String precision : new String[] {"fp32", "fp16", "int8"}) {
            double peak = p.peakFlops(precision, hw.primary());
            if (!Double.isNaN(peak)) {
                System.out.printf(
                        Locale.ROOT, "  peak %-5s %,10.1f GFLOP/s%n", precision, peak / 1e9);
            }
        }
        System.out.printf(
                Locale.ROOT,
                "  memory bandwidth %,.0f GB/s%s%n",
                p.memoryBandwidthBytesPerSec() / 1e9,
                p.pcieBandwidthBytesPerSec() > 0
                        ? String.format(
                                Locale.ROOT,
                                ", PCIe %,.0f GB/s",
                                p.pcieBandwidthBytesPerSec() / 1e9)
                        : "");
        return 0;
    }
}
