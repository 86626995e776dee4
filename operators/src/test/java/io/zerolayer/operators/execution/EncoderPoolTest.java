package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.EncoderModel;
import org.junit.jupiter.api.Test;

class EncoderPoolTest {
    // thread counts no other test uses, so pools parked by other tests in this JVM do not mix in
    private static final int THREADS = 7;

    @Test
    void aParkedPoolIsHandedWithItsOpenSessionsToOneLaterTaskWithTheSameSettings() {
        EncoderPool.closeParked();
        EncoderPool first = EncoderPool.reuseOrOpen(THREADS, null);
        first.get(EncoderModel.MINILM_L6_V2_INT8);
        first.park();
        assertThat(EncoderPool.isParked(first)).isTrue();

        assertThat(EncoderPool.reuseOrOpen(THREADS + 1, null))
                .as("other settings: a new pool")
                .isNotSameAs(first);
        EncoderPool again = EncoderPool.reuseOrOpen(THREADS, null);
        assertThat(again).isSameAs(first);
        assertThat(again.openSessions()).isEqualTo(1);
        assertThat(EncoderPool.reuseOrOpen(THREADS, null))
                .as("a pool is handed to one task only")
                .isNotSameAs(first);
        again.close();
    }

    @Test
    void releasingTheJobClosesParkedPoolsAndLeavesPoolsInUseAlone() {
        EncoderPool.closeParked();
        EncoderPool parked = EncoderPool.reuseOrOpen(THREADS, null);
        parked.get(EncoderModel.MINILM_L6_V2_INT8);
        parked.park();
        EncoderPool inUse = EncoderPool.reuseOrOpen(THREADS + 2, null);
        inUse.get(EncoderModel.MINILM_L6_V2_INT8);

        assertThat(EncoderPool.closeParked()).isEqualTo(1);
        assertThat(parked.openSessions()).isZero();
        assertThat(EncoderPool.isParked(parked)).isFalse();
        assertThat(inUse.openSessions()).isEqualTo(1);
        assertThat(EncoderPool.reuseOrOpen(THREADS, null)).isNotSameAs(parked);
        inUse.close();
    }

    @Test
    void poolsOutliveJobsOnlyWhereTheseClassesComeFromTheJvmsClassPath() throws Exception {
        assertThat(EncoderPool.outliveJobs()).as("on the test's class path").isTrue();
        // loaded again, child-first, by a loader of its own, as Flink loads a job jar's classes
        java.net.URL classes =
                EncoderPool.class.getProtectionDomain().getCodeSource().getLocation();
        try (java.net.URLClassLoader jobJar =
                new java.net.URLClassLoader(
                        new java.net.URL[] {classes}, EncoderPool.class.getClassLoader()) {
                    @Override
                    protected Class<?> loadClass(String name, boolean resolve)
                            throws ClassNotFoundException {
                        if (!name.equals(EncoderPool.class.getName())) {
                            return super.loadClass(name, resolve);
                        }
                        synchronized (getClassLoadingLock(name)) {
                            Class<?> c = findLoadedClass(name);
                            return c != null ? c : findClass(name);
                        }
                    }
                }) {
            Class<?> own = jobJar.loadClass(EncoderPool.class.getName());
            assertThat(own.getClassLoader()).isSameAs(jobJar);
            assertThat(own.getMethod("outliveJobs").invoke(null)).isEqualTo(false);
        }
    }
}
